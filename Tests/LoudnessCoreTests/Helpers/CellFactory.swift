import LoudnessCore

/// Builds cell inputs for the estimator tests.
enum CellFactory {
    /// One check-in per level, each from its own device ("d0", "d1", …).
    static func oneDeviceEach(_ levels: [Double]) -> [CellCheckin] {
        levels.enumerated().map { index, level in
            CellCheckin(checkinID: "c\(index)", deviceID: "d\(index)", levelDB: level)
        }
    }
}
