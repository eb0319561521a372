import Foundation
import HearClearHTTP
import HearClearModel

/// Validation shared by v1, v2 and the venue endpoints; each check appends errors with the
/// JSON pointer of the field.
struct FieldRules {
    static let maxErrors = 25
    private(set) var errors: [Problem.FieldError] = []

    var isFull: Bool { errors.count >= Self.maxErrors }

    mutating func fail(_ pointer: String, _ detail: String) {
        if !isFull { errors.append(.init(pointer, detail)) }
    }

    /// `venueId`: 1–128 characters of `A–Z a–z 0–9 . _ ~ : -`.
    static func isValidVenueID(_ id: String) -> Bool {
        let bytes = id.utf8
        guard (1...128).contains(bytes.count) else { return false }
        return bytes.allSatisfy { b in
            (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || (b >= 48 && b <= 57) || b == 46 || b == 95 || b == 126
                || b == 58 || b == 45
        }
    }

    static let venueIDRule = "must be 1–128 characters of A–Z a–z 0–9 . _ ~ : -"

    mutating func text(_ value: String?, _ pointer: String, required: Bool, maxLength: Int) -> String? {
        guard let value else {
            if required { fail(pointer, "is required") }
            return nil
        }
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty {
            fail(pointer, "must not be empty")
            return nil
        }
        // PostgreSQL's text cannot hold NUL: refused here rather than failing the statement.
        if trimmed.unicodeScalars.contains("\u{0}") {
            fail(pointer, "must not contain the NUL character")
            return nil
        }
        // Unicode scalars, as PostgreSQL's length() counts them, not grapheme clusters.
        if trimmed.unicodeScalars.count > maxLength {
            fail(pointer, "must be at most \(maxLength) characters")
            return nil
        }
        return trimmed
    }

    mutating func number(_ value: Double?, _ pointer: String, required: Bool, in range: ClosedRange<Double>)
        -> Double?
    {
        guard let value else {
            if required { fail(pointer, "is required") }
            return nil
        }
        guard value.isFinite, range.contains(value) else {
            fail(pointer, "must be a number from \(format(range.lowerBound)) to \(format(range.upperBound))")
            return nil
        }
        return value
    }

    mutating func timezone(_ value: String?, _ pointer: String) -> String? {
        guard let value else { return nil }
        guard value.contains("/") || value == "UTC", TimeZone(identifier: value) != nil else {
            fail(pointer, "must be an IANA time zone such as Australia/Sydney")
            return nil
        }
        return value
    }

    /// Venue details as sent with a PUT or a check-in (`required` for a PUT or a new venue).
    mutating func venueDetails(
        name: String?, latitude: Double?, longitude: Double?, timezone: String?, address: String?, category: String?,
        at prefix: String, required: Bool
    ) -> VenueDetails? {
        let name = text(name, prefix + "/name", required: required, maxLength: 200)
        let latitude = number(latitude, prefix + "/latitude", required: required, in: -90...90)
        let longitude = number(longitude, prefix + "/longitude", required: required, in: -180...180)
        let timezone = self.timezone(timezone, prefix + "/timezone")
        let address = text(address, prefix + "/address", required: false, maxLength: 500)
        let category = text(category, prefix + "/category", required: false, maxLength: 100)
        guard let name, let latitude, let longitude else { return nil }
        return VenueDetails(
            name: name, latitude: latitude, longitude: longitude, timezone: timezone, address: address,
            category: category
        )
    }

    private func format(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
