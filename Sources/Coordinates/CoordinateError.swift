/// Why a coordinate transformation could not be set up or a point could not be converted.
///
/// Each case names what is at fault: the CRS name as given, or the zero-based index of the point.
public enum CoordinateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name is neither an alias nor an `EPSG:n` code that PROJ knows.
    case unknownCRS(String)
    /// PROJ knows the name, but it is not a horizontal CRS a 2D transformation can use.
    case unsupportedCRS(name: String, reason: String)
    /// PROJ found no way to go from one CRS to the other.
    case noTransformation(from: String, to: String, reason: String)
    /// An input point is not a valid position in the source CRS (NaN, infinity, latitude beyond
    /// ±90 or longitude beyond ±180 for a geographic source).
    case invalidPoint(index: Int, reason: String)
    /// PROJ could not transform a valid input point (for example, far outside the projection's domain).
    case transformFailed(index: Int, reason: String)
    /// The x and y buffers of a batch differ in length.
    case lengthMismatch(xCount: Int, yCount: Int)

    public var description: String {
        switch self {
        case .unknownCRS(let name):
            return "unknown CRS '\(name)': use EPSG:<code> or one of \(CRSCatalog.aliasNames.joined(separator: ", "))"
        case .unsupportedCRS(let name, let reason):
            return "CRS '\(name)' cannot be used: \(reason)"
        case .noTransformation(let from, let to, let reason):
            return "no transformation from \(from) to \(to): \(reason)"
        case .invalidPoint(let index, let reason):
            return "point \(index): \(reason)"
        case .transformFailed(let index, let reason):
            return "point \(index) could not be transformed: \(reason)"
        case .lengthMismatch(let xCount, let yCount):
            return "the x and y buffers differ in length (\(xCount) and \(yCount))"
        }
    }
}

/// One input point that a batch could not convert, by zero-based index.
public struct PointIssue: Sendable, Equatable, CustomStringConvertible {
    /// What went wrong with the point.
    public enum Kind: Sendable, Equatable {
        /// The input is not a valid position in the source CRS; the reason says why.
        case invalidInput(String)
        /// PROJ rejected a valid input (outside the projection's domain).
        case transformFailed
    }

    /// The zero-based index of the point in the batch.
    public let index: Int
    public let kind: Kind

    public init(index: Int, kind: Kind) {
        self.index = index
        self.kind = kind
    }

    /// The matching `CoordinateError`.
    public var error: CoordinateError {
        switch kind {
        case .invalidInput(let reason): return .invalidPoint(index: index, reason: reason)
        case .transformFailed: return .transformFailed(index: index, reason: "outside the domain of the transformation")
        }
    }

    public var description: String { error.description }
}
