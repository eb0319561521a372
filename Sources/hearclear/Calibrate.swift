import ArgumentParser

/// `hearclear calibrate …`: reference and crowd calibration of phone models (issue 13).
struct Calibrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Calibrate phone models: from a sound calibrator's tone, a sound level meter, or the crowd.",
        subcommands: [
            CalibrateTone.self, CalibrateMeter.self, CalibrateModels.self,
        ]
    )
}
