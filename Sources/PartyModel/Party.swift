import Geo

/// An open taxi-pooling party: riders going from one place to another at one time.
///
/// Identified by a client-given `id`; placed on the map (and clustered) at its `origin`.
///
/// Equality and hashing compare the content; `version` (the store's revision counter) is left
/// out, so a party read back equals the one written.
public struct Party: Sendable, Hashable {
    /// Client-given identifier: 1–64 characters of `[A-Za-z0-9_-]`.
    public var id: String
    /// Where the riders meet.
    public var origin: Coordinate
    /// Where they are going.
    public var destination: Coordinate
    /// Departure instant, Unix seconds.
    public var departAt: Double
    /// Seats in the taxi the party fills, the organiser included.
    public var seatsTotal: Int
    /// Seats already taken: the sum of the riders' seats when `riders` is not empty.
    public var seatsTaken: Int
    /// An optional human title ("강남역 → 판교").
    public var title: String?
    /// The riders, organiser first. Empty: the party has no rider list and `seatsTaken` seats
    /// are held by an implied organiser (see `seatedRiders`).
    public var riders: [PartyRider]
    /// The revision: 1 when created, one more at every write (replace, join, leave, settle). Set
    /// by `PartyService`; not part of equality.
    public var version: Int
    /// The party's settled fare (`PartyService.settle`), nil while unsettled. A settled party is
    /// closed: it takes no more riders, loses none and cannot be replaced (only deleted).
    public var settlement: PartySettlement?
    /// The order its ride takes its drop-offs (indices 1…k into `intermediateDropOffs`), fixed by
    /// the joins: a join places the rider where the offer it accepted placed them, and the ride
    /// keeps that order. Nil (a party never joined, or with fewer than two drop-offs): the order
    /// that makes the ride shortest in time.
    public var stopOrder: [Int]?

    public init(id: String, origin: Coordinate, destination: Coordinate, departAt: Double,
                seatsTotal: Int, seatsTaken: Int, title: String? = nil, riders: [PartyRider] = [], version: Int = 0,
                settlement: PartySettlement? = nil, stopOrder: [Int]? = nil)
    {
        self.id = id
        self.origin = origin
        self.destination = destination
        self.departAt = departAt
        self.seatsTotal = seatsTotal
        self.seatsTaken = seatsTaken
        self.title = title
        self.riders = riders
        self.version = version
        self.settlement = settlement
        self.stopOrder = stopOrder
    }

    /// A party with `riders` (organiser first), whose `seatsTaken` is their seats' sum.
    public init(id: String, origin: Coordinate, destination: Coordinate, departAt: Double,
                seatsTotal: Int, riders: [PartyRider], title: String? = nil)
    {
        self.init(id: id, origin: origin, destination: destination, departAt: departAt, seatsTotal: seatsTotal,
                  seatsTaken: riders.reduce(0) { $0 + $1.seats }, title: title, riders: riders)
    }

    public static func == (a: Party, b: Party) -> Bool {
        a.id == b.id && a.origin == b.origin && a.destination == b.destination && a.departAt == b.departAt
            && a.seatsTotal == b.seatsTotal && a.seatsTaken == b.seatsTaken && a.title == b.title && a.riders == b.riders
            && a.settlement == b.settlement && a.stopOrder == b.stopOrder
    }

    public func hash(into h: inout Hasher) {
        h.combine(id)
        h.combine(origin)
        h.combine(destination)
        h.combine(departAt)
        h.combine(seatsTotal)
        h.combine(seatsTaken)
        h.combine(title)
        h.combine(riders)
        h.combine(settlement)
        h.combine(stopOrder)
    }

    /// True once the party's fare was settled: it is closed to joins and left out of matching.
    public var isSettled: Bool { settlement != nil }

    /// The most riders (with distinct ids) a party lists: one per seat.
    public static var maxRiders: Int { maxSeats }

    /// Seats still free.
    public var seatsLeft: Int { seatsTotal - seatsTaken }

    /// Largest `seats_total` accepted (a van taxi).
    public static let maxSeats = 16
    /// Longest `title` accepted, in Unicode code points (scalars), as JSON Schema's `maxLength`
    /// counts a string: a character with combining marks counts each mark (so the size is bounded too,
    /// at 4 bytes of UTF-8 a code point).
    public static let maxTitleLength = 200
    /// Earliest and latest `depart_at` accepted: 2000-01-01 and 2100-01-01 (UTC).
    public static let departRange: ClosedRange<Double> = 946_684_800...4_102_444_800

    /// True when `id` is 1–64 characters of `[A-Za-z0-9_-]`.
    public static func isValidID<S: StringProtocol>(_ id: S) -> Bool {
        let u = id.utf8
        guard !u.isEmpty, u.count <= 64 else { return false }
        for c in u {
            switch c {
            case 48...57, 65...90, 97...122, 45, 95: continue
            default: return false
            }
        }
        return true
    }

    /// Checks every field; throws the first problem found, naming the field.
    public func validate() throws(PartyValidationError) {
        guard Party.isValidID(id) else {
            throw PartyValidationError(field: "id", message: "must be 1–64 characters of A–Z, a–z, 0–9, '_' or '-', got '\(id.prefix(80))'")
        }
        guard origin.isValid else {
            throw PartyValidationError(field: "origin", message: "must be a longitude within ±180 and a latitude within ±90, got \(origin)")
        }
        guard destination.isValid else {
            throw PartyValidationError(field: "destination", message: "must be a longitude within ±180 and a latitude within ±90, got \(destination)")
        }
        guard departAt.isFinite, Party.departRange.contains(departAt) else {
            throw PartyValidationError(field: "depart_at", message: "must be an instant between 2000-01-01 and 2100-01-01")
        }
        guard (1...Party.maxSeats).contains(seatsTotal) else {
            throw PartyValidationError(field: "seats_total", message: "must be a whole number from 1 to \(Party.maxSeats), got \(seatsTotal)")
        }
        guard (0...seatsTotal).contains(seatsTaken) else {
            throw PartyValidationError(field: "seats_taken", message: "must be a whole number from 0 to seats_total (\(seatsTotal)), got \(seatsTaken)")
        }
        if !riders.isEmpty {
            var ids = Set<String>()
            var seats = 0
            for (i, r) in riders.enumerated() {
                try r.validate(field: "riders[\(i)]")
                guard ids.insert(r.id).inserted else {
                    throw PartyValidationError(field: "riders[\(i)].rider_id", message: "'\(r.id)' is listed twice", betweenFields: true)
                }
                seats += r.seats
            }
            guard seats == seatsTaken else {
                throw PartyValidationError(field: "seats_taken", message: "must equal the riders' seats (\(seats)), got \(seatsTaken)",
                                           betweenFields: true)
            }
        }
        if let stopOrder, stopOrder.sorted() != Array(1...max(1, intermediateDropOffs.count)) || stopOrder.count < 2 {
            throw PartyValidationError(field: "stop_order", message: "must order the party's \(intermediateDropOffs.count) drop-offs before the destination (two or more), got \(stopOrder)",
                                       betweenFields: true)
        }
        if let settlement { try settlement.validate() }
        if let title {
            let codePoints = title.unicodeScalars.count
            guard codePoints <= Party.maxTitleLength else {
                throw PartyValidationError(field: "title", message: "must be at most \(Party.maxTitleLength) Unicode code points (each combining mark counts), got \(codePoints)")
            }
            guard !title.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw PartyValidationError(field: "title", message: "must not contain control characters")
            }
        }
    }
}

/// A party field that is missing or out of range.
public struct PartyValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The field at fault, as the API names it (`seats_taken`, `origin`, …).
    public let field: String
    /// What is wrong with it.
    public let message: String
    /// True when the value is fine on its own but does not go with the others (a rider listed
    /// twice, riders' seats that do not add up to `seats_taken`).
    public let betweenFields: Bool

    public init(field: String, message: String, betweenFields: Bool = false) {
        self.field = field
        self.message = message
        self.betweenFields = betweenFields
    }

    public var description: String { "\(field) \(message)" }
}

/// Which parties a query counts: departure window and free seats. Empty means all.
public struct PartyFilter: Sendable, Hashable {
    /// Only parties departing at or after this instant (Unix seconds).
    public var departAfter: Double?
    /// Only parties departing at or before this instant (Unix seconds).
    public var departBefore: Double?
    /// Only parties with at least this many seats left.
    public var minSeats: Int?

    public init(departAfter: Double? = nil, departBefore: Double? = nil, minSeats: Int? = nil) {
        self.departAfter = departAfter
        self.departBefore = departBefore
        self.minSeats = minSeats
    }

    /// True when the filter lets every party through.
    public var isEmpty: Bool { departAfter == nil && departBefore == nil && (minSeats ?? 0) <= 0 }

    /// The bounds as plain numbers, for tight loops.
    @inline(__always)
    package var bounds: (after: Double, before: Double, seats: Int) {
        (departAfter ?? -.infinity, departBefore ?? .infinity, minSeats ?? Int.min)
    }

    /// True when a party with this departure and free seats passes.
    @inline(__always)
    public func matches(departAt: Double, seatsLeft: Int) -> Bool {
        let b = bounds
        return departAt >= b.after && departAt <= b.before && seatsLeft >= b.seats
    }

    /// True when `party` passes.
    public func matches(_ party: Party) -> Bool { matches(departAt: party.departAt, seatsLeft: party.seatsLeft) }
}
