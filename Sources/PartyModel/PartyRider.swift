import Geo

/// One rider (or group of riders travelling together) in a party.
///
/// A party's riders are listed organiser first; `Party.seatsTaken` is the sum of their seats.
public struct PartyRider: Sendable, Hashable {
    /// Client-given identifier, unique within the party: 1–64 characters of `[A-Za-z0-9_-]`.
    public var id: String
    /// Seats this rider takes (at least 1: a rider with friends takes several).
    public var seats: Int
    /// Where this rider gets off; nil: at the party's destination.
    public var dropOff: Coordinate?

    public init(id: String, seats: Int = 1, dropOff: Coordinate? = nil) {
        self.id = id
        self.seats = seats
        self.dropOff = dropOff
    }

    /// The id of the organiser a party without a rider list implies (`seats_taken` seats, riding
    /// to the destination).
    public static let impliedOrganiserID = "organiser"

    /// Checks the fields; `field` names the rider in messages (`riders[2]`).
    public func validate(field: String) throws(PartyValidationError) {
        guard Party.isValidID(id) else {
            throw PartyValidationError(field: "\(field).rider_id", message: "must be 1–64 characters of A–Z, a–z, 0–9, '_' or '-', got '\(id.prefix(80))'")
        }
        guard (1...Party.maxSeats).contains(seats) else {
            throw PartyValidationError(field: "\(field).seats", message: "must be a whole number from 1 to \(Party.maxSeats), got \(seats)")
        }
        if let dropOff, !dropOff.isValid {
            throw PartyValidationError(field: "\(field).drop_off", message: "must be a longitude within ±180 and a latitude within ±90, got \(dropOff)")
        }
    }
}

extension Party {
    /// Every rider, the organiser first. A party stored without a rider list (as written before
    /// parties held riders, or by a `PUT` without `riders`) has an implied organiser, id
    /// `organiser`, holding its `seatsTaken` seats and riding to the destination; none when
    /// no seat is taken.
    public var seatedRiders: [PartyRider] {
        if riders.isEmpty && seatsTaken > 0 { return [PartyRider(id: PartyRider.impliedOrganiserID, seats: seatsTaken)] }
        return riders
    }

    /// The distinct drop-off points before the destination (a drop-off at the destination
    /// itself is the destination), in rider order.
    public var intermediateDropOffs: [Coordinate] {
        var out: [Coordinate] = []
        for r in riders {
            guard let d = r.dropOff, d != destination, !out.contains(d) else { continue }
            out.append(d)
        }
        return out
    }
}

extension Party {
    /// The party with `rider` added after its seated riders (an implied organiser made explicit)
    /// and its ride taking the drop-offs in `stopOrder` (indices 1…k into the new party's
    /// `intermediateDropOffs`; kept only with two or more). Without an order, a stored one is
    /// kept, the rider's new drop-off (if any) taken last before the destination. The version
    /// is left as it was.
    public func joining(_ rider: PartyRider, stopOrder order: [Int]? = nil) -> Party {
        var p = self
        p.riders = seatedRiders + [rider]
        p.seatsTaken += rider.seats
        let count = p.intermediateDropOffs.count
        var kept = order ?? stopOrder
        if order == nil, var stored = kept, stored.count < count { stored.append(count); kept = stored }
        p.stopOrder = count >= 2 ? kept : nil
        return p
    }

    /// This party's drop-off order carried over to `other` (the same party with other riders):
    /// the drop-offs `other` keeps, in this party's order, when it adds none; else nil (its ride
    /// is then planned anew, in the order that makes it shortest in time).
    public func stopOrder(carriedTo other: Party) -> [Int]? {
        guard let stopOrder else { return nil }
        let mine = intermediateDropOffs, theirs = other.intermediateDropOffs
        guard theirs.count >= 2, theirs.allSatisfy(mine.contains) else { return nil }
        return stopOrder.compactMap { theirs.firstIndex(of: mine[$0 - 1]).map { $0 + 1 } }
    }
}

extension Party {
    /// This party, written without a rider list over `old`, keeping the riders who joined
    /// `old`: the organiser (its first rider) is given `seatsTaken` less the other riders'
    /// seats. Throws `PartyWriteError.seatsConflict` when `seatsTaken` does not cover them
    /// (rather than dropping a rider who joined). A party with a rider list is itself.
    package func keepingRiders(of old: Party) throws -> Party {
        guard riders.isEmpty, !old.riders.isEmpty else { return self }
        var stored = self
        let others = old.riders.dropFirst()
        let otherSeats = others.reduce(0) { $0 + $1.seats }
        if others.isEmpty && seatsTaken == 0 {
            stored.riders = []
            return stored
        }
        guard seatsTaken > otherSeats else {
            throw PartyWriteError.seatsConflict(id: id, message:
                "seats_taken \(seatsTaken) does not cover the \(otherSeats) seats of the riders who joined (\(others.map(\.id).joined(separator: ", "))) plus the organiser's; send the riders list, or leave them out and count their seats")
        }
        var organiser = old.riders[0]
        organiser.seats = seatsTaken - otherSeats
        stored.riders = [organiser] + others
        try stored.validate()
        return stored
    }
}
