import ArgumentParser

/// `hearclear meter --submit …`: where and as what the metered samples are posted.
struct SubmitOptions: ParsableArguments {
    @Flag(help: "Post the samples as a v2 check-in and print the server's answer and judgement.")
    var submit = false

    @Option(help: "Base URL of the server, e.g. http://127.0.0.1:8080.")
    var url: String?

    @Option(help: "The venue's id (e.g. its Foursquare id).")
    var venue: String?

    @Option(help: "Name of a venue the server does not know yet (with --latitude and --longitude).")
    var venueName: String?

    @Option(parsing: .unconditional, help: "Latitude of a new venue, degrees.")
    var latitude: Double?

    @Option(parsing: .unconditional, help: "Longitude of a new venue, degrees.")
    var longitude: Double?

    @Option(help: "IANA time zone of a new venue, e.g. Australia/Sydney.")
    var timezone: String?

    @Option(help: "A stable id for the recording device (the server keeps its bias per device).")
    var device: String?

    @Option(help: "The device's model, e.g. \"Zoom H5\".")
    var model: String?

    @Option(help: "Seconds to wait for the server's judgement after it accepts the check-in.")
    var wait = 5.0

    @Flag(
        help: """
            Also send each second's LCeq and third-octave bands, for the cells' sound character; \
            "average" is then the A-weighted level (LAeq), as the server takes it beside "lceq".
            """)
    var withSpectra = false

    func validate() throws {
        let venueDetails = [venueName == nil, latitude == nil, longitude == nil, timezone == nil]
        guard submit else {
            if url != nil || venue != nil || device != nil || model != nil || withSpectra
                || venueDetails.contains(false)
            {
                throw ValidationError(
                    "--url, --venue, --device, --with-spectra and the venue details are only used with --submit")
            }
            return
        }
        guard let url, url.hasPrefix("http://") || url.hasPrefix("https://") else {
            throw ValidationError("--submit needs --url, the server's base URL (http://… or https://…)")
        }
        guard let venue, !venue.isEmpty else { throw ValidationError("--submit needs --venue, the venue's id") }
        guard let device, !device.isEmpty else { throw ValidationError("--submit needs --device, the device's id") }
        guard (latitude == nil) == (longitude == nil) else {
            throw ValidationError("give both --latitude and --longitude, or neither")
        }
        guard wait >= 0, wait <= 600 else { throw ValidationError("--wait must be 0…600 seconds") }
    }
}
