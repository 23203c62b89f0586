import Foundation
import HTTPServer
import JSON

/// `/health`, `/metrics` and `/openapi.json`.
func registerSystemEndpoints(_ router: Router, _ context: ServiceContext) {
    let roads = CoverageJSON.healthSummary(context.routeEngine.graph)
    router.add("GET", "/health", OperationDoc("Liveness, the party store's state (status degraded with the reason while it cannot be reached), the loaded dataset's name and version, the served road areas and the circuity factors estimates use",
                                              responses: [(200, "The service is up")], responseSchema: ResponseSchemas.health, responseExample: ResponseSchemas.healthExample), cost: .light, cacheable: false) { _ in
        let problem = context.parties.storeProblem
        var store: [(String, JSONValue)] = [("status", .string(problem == nil ? "ok" : "degraded")),
                                            ("kind", .string(context.parties.isShared ? "postgresql" : "sqlite"))]
        if let problem { store.append(("reason", .string(problem))) }
        return .json([
            "status": .string(problem == nil ? "ok" : "degraded"),
            "party_store": .object(store),
            "dataset": ["name": .string(context.info.name), "version": .string(context.info.version)],
            "uptime_s": .number((Date().timeIntervalSince(context.startedAt) * 1000).rounded() / 1000),
            "network": roads["network"] ?? .null,
            "coverage": roads["coverage"] ?? .null,
            "circuity": roads["circuity"] ?? .null,
        ])
    }
    router.add("GET", "/metrics", OperationDoc("Prometheus text: requests by route and status, latency histograms, in-flight, match candidates left out by reason",
                                               responses: [(200, "Prometheus text exposition format 0.0.4")],
                                               responseSchema: ["type": "string"], responseContentType: "text/plain"), cost: .light, cacheable: false) { _ in
        .text(context.metrics.prometheusText() + buildInfo(context) + ProcessMetrics.prometheusText() + partyChange(context)
                + context.pooling.dropped.prometheusText(),
              contentType: "text/plain; version=0.0.4; charset=utf-8")
    }
    router.add("GET", "/openapi.json", OperationDoc("This API's OpenAPI 3.1 document",
                                                    responses: [(200, "The OpenAPI document")], responseSchema: ResponseSchemas.openAPI)) { [weak router] _ in
        guard let router else { throw HTTPError(status: 503, code: "shutting_down", message: "the service is stopping") }
        return .json(OpenAPIDocument.build(router: router, dataset: context.info))
    }
}

/// `taxipot_party_change_applied` with a shared party store (PostgreSQL): the last change of its
/// log this replica's index reflects; the database's `party_change_counter` less this is how far
/// the replica is behind, in writes. Nothing for the embedded store.
private func partyChange(_ context: ServiceContext) -> String {
    guard context.parties.isShared else { return "" }
    return "# HELP taxipot_party_change_applied Last change of the shared party store's log this replica's index reflects.\n"
        + "# TYPE taxipot_party_change_applied gauge\ntaxipot_party_change_applied \(context.parties.currentChange)\n"
}

/// `taxipot_build_info`: a constant 1 whose labels say which engine, API and dataset serve.
private func buildInfo(_ context: ServiceContext) -> String {
    func esc(_ s: String) -> String { s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") }
    return "# HELP taxipot_build_info Engine, API and dataset versions of this process.\n# TYPE taxipot_build_info gauge\n"
        + "taxipot_build_info{version=\"\(APIVersion.engine)\",api_version=\"\(APIVersion.api)\",dataset=\"\(esc(context.info.name))\",dataset_version=\"\(esc(context.info.version))\"} 1\n"
}
