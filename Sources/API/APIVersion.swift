/// Versions the service reports: in `/openapi.json` (`info.version`), `/metrics`
/// (`taxipot_build_info`) and `taxipot --version`.
public enum APIVersion {
    /// The HTTP API's contract version (semantic versioning: a breaking change bumps the major).
    public static let api = "1.1.0"
    /// The engine's release.
    public static let engine = "0.1.0"
}
