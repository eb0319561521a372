import ArgumentParser

@main
struct HearClear: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearclear",
        abstract: "HearClear: crowdsourced venue loudness, by weekday and hour.",
        discussion: """
            Phones submit per-second microphone levels as check-ins; the server cleans them, removes \
            outliers and tells people how loud a venue is at a given hour. Every serve option can also \
            be set through the environment variable named in its help; flags win over variables. \
            The load tests and the simulator are in hearclear-bench.
            """,
        subcommands: [
            Serve.self, Migrate.self, Meter.self, Calibrate.self, Devices.self, Months.self, Recompute.self,
            Export.self,
        ]
    )
}
