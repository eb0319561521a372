import Foundation
import HearClearEngine
import HearClearHTTP
import HearClearModel
import Hummingbird
import LoudnessCore

/// `/api/v1`: the 2013 iOS client's requests, answered as docs/LEGACY_V1.md says, over the same
/// stores and ingest as v2. Bodies are JSON whatever their `Content-Type`.
struct LegacyController {
    let venues: VenueDirectory
    let devices: DeviceDirectory
    let intake: CheckinIntake
    let loudness: LoudnessReads
    /// The bands in force, from memory like v2's.
    let reads: CachedReads
    /// The per-device check-in limit (the per-address one is a middleware).
    let limiter: RateLimiter

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("user/{deviceID}", use: getUser)
        group.post("user/create", use: createUser)
        group.post("venue/new", use: createVenue)
        // Registered before venue/{id} so that it is not read as a venue id (the old server did).
        group.get("venue/volume_bounds", use: volumeBounds)
        group.get("venue/{id}", use: getVenue)
        group.get("venue/{id}/volume", use: getVolume)
        group.post("checkin/new", use: createCheckin)
    }

    @Sendable func getUser(_ request: Request, context: AppRequestContext) async throws -> Response {
        let id = context.parameters.get("deviceID") ?? ""
        return try await devices.exists(clientID: id) ? LegacyResponse.ok() : LegacyResponse.notFound()
    }

    @Sendable func createUser(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await Self.decode(LegacyUserRequest.self, request)
        guard let user = body?.user, let deviceID = user.deviceID, !deviceID.isEmpty, deviceID.count <= 128 else {
            return LegacyResponse.error(.forbidden, "user and user.deviceID are required")
        }
        try await devices.register(clientID: deviceID, model: user.device.map { String($0.prefix(64)) })
        return LegacyResponse.ok()
    }

    @Sendable func createVenue(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body = try await Self.decode(LegacyVenueRequest.self, request)
        guard let venue = body?.venue, let id = venue.id, let name = venue.name else {
            return LegacyResponse.error(.forbidden, "venue, venue.id and venue.name are required")
        }
        guard FieldRules.isValidVenueID(id) else {
            return LegacyResponse.error(.badRequest, "venue.id \(FieldRules.venueIDRule)")
        }
        var rules = FieldRules()
        let details = rules.venueDetails(
            name: name, latitude: venue.latitude?.value, longitude: venue.longitude?.value, timezone: nil,
            address: nil, category: nil, at: "venue", required: true
        )
        guard let details else {
            let message = rules.errors.map { "\($0.pointer.replacingOccurrences(of: "/", with: ".")) \($0.detail)" }
            return LegacyResponse.error(.badRequest, message.joined(separator: "; "))
        }
        _ = try await venues.createIfMissing(externalID: id, details: details)
        return LegacyResponse.ok()
    }

    @Sendable func getVenue(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let venue = try await findVenue(context) else { return LegacyResponse.notFound() }
        let volume = try await LegacyVolume(reader: loudness).volume(of: venue)
        return LegacyResponse.json(["venue": Self.venueObject(venue), "volume": volume.map { $0 as Any } ?? NSNull()])
    }

    @Sendable func getVolume(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let venue = try await findVenue(context) else { return LegacyResponse.notFound() }
        let volinfo = try await LegacyVolume(reader: loudness).volinfo(of: venue, bands: try await reads.currentBands())
        return LegacyResponse.json(["venue": Self.venueObject(venue), "volinfo": volinfo])
    }

    @Sendable func volumeBounds(_ request: Request, context: AppRequestContext) async throws -> Response {
        var lower = 0.0
        var bounds: [[String: Any]] = []
        let referenceOffsetDB = loudness.referenceOffsetDB
        for band in try await reads.currentBands().bands {
            let upper = band.belowDB.map { Self.amplitude(calibratedDB: $0, referenceOffsetDB: referenceOffsetDB) } ?? 1
            bounds.append(["name": band.label, "lowBound": lower, "upBound": upper])
            lower = upper
        }
        return LegacyResponse.json(bounds)
    }

    @Sendable func createCheckin(_ request: Request, context: AppRequestContext) async throws -> Response {
        let body: LegacyCheckinRequest?
        do {
            body = try await Self.decode(LegacyCheckinRequest.self, request)
        } catch let problem as Problem {
            return LegacyResponse.error(.badRequest, problem.detail ?? "the body is not valid JSON")
        }
        guard let checkin = body?.checkin else { return LegacyResponse.notFound() }
        let venueZone: TimeZone? =
            if let id = checkin.ID, FieldRules.isValidVenueID(id),
                let zone = try await venues.find(externalID: id)?.timezone
            {
                TimeZone(identifier: zone)
            } else { nil }
        do {
            let translation = try LegacyCheckinTranslator.translate(checkin, venueZone: venueZone)
            var submission = try CheckinValidator(now: Date()).validate(translation.request, source: .v1)
            submission.zoneGuessed = translation.zoneGuessed
            let keyed = intake.keyed(submission)
            let outcome = try await limiter.admitCheckin(device: keyed.device, context: context) {
                try await UnknownVenueProblem.answering { try await intake.submit(keyed) }
            }
            switch outcome {
            case .created, .duplicate:
                return LegacyResponse.ok()
            case .conflict:
                return LegacyResponse.error(
                    .badRequest, "a different check-in from this device with the same first sample time exists"
                )
            }
        } catch let error as LegacyError {
            return LegacyResponse.error(.badRequest, error.message)
        } catch let problem as Problem where problem.status == .unprocessableContent {
            let message = problem.errors.map { "\(LegacyCheckinTranslator.legacyField($0.pointer)) \($0.detail)" }
            return LegacyResponse.error(.badRequest, message.joined(separator: "; "))
        }
    }

    private func findVenue(_ context: AppRequestContext) async throws -> Venue? {
        let id = context.parameters.get("id") ?? ""
        guard FieldRules.isValidVenueID(id) else { return nil }
        return try await venues.find(externalID: id)
    }

    static func venueObject(_ venue: Venue) -> [String: Any] {
        [
            "id": venue.id, "name": venue.name, "foursquareID": venue.externalID, "latitude": venue.latitude,
            "longitude": venue.longitude,
        ]
    }

    /// The client's amplitude scale: the dBFS of `calibratedDB` as a linear amplitude, 6 significant digits.
    static func amplitude(calibratedDB: Double, referenceOffsetDB: Double) -> Double {
        let value = Level.amplitude(fromDBFS: calibratedDB - referenceOffsetDB)
        let scale = pow(10, 5 - floor(log10(value)))
        return (value * scale).rounded() / scale
    }

    /// JSON whatever the Content-Type; nil for an empty body.
    static func decode<T: Decodable>(_ type: T.Type, _ request: Request) async throws -> T? {
        let buffer = try await request.body.collect(upTo: BodyLimits.meterBytes)
        guard buffer.readableBytes > 0 else { return nil }
        do {
            return try JSONDecoder().decode(type, from: Data(buffer: buffer))
        } catch is DecodingError {
            throw Problem.malformed("the body is not valid JSON")
        }
    }
}
