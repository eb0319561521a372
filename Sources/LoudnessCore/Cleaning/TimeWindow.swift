/// Centred windows by time over strictly increasing offsets, skipping seconds not considered.
enum TimeWindow {
    /// Tolerance added to every half-width so that offsets stored as `real` (Float32) that are a
    /// hair off whole seconds still fall inside the window they belong to.
    static let toleranceSeconds: Double = 0.5

    /// `collect(around:offsets:values:considered:halfWidthSeconds:into:)`: the considered values
    /// whose offset lies within ±(halfWidth + 0.5 s) of the offset at `index`, the centre
    /// included, into `window` (emptied first, its storage kept: the filters reuse one buffer for
    /// every second of a session).
    static func collect(
        around index: Int,
        offsets: [Double],
        values: [Double],
        considered: [Bool],
        halfWidthSeconds: Double,
        into window: inout [Double]
    ) {
        window.removeAll(keepingCapacity: true)
        let reach = halfWidthSeconds + toleranceSeconds
        let centre = offsets[index]
        var before = index
        while before > 0, centre - offsets[before - 1] < reach {
            before -= 1
        }
        var after = index
        while after + 1 < offsets.count, offsets[after + 1] - centre < reach {
            after += 1
        }
        for position in before...after where considered[position] {
            window.append(values[position])
        }
    }
}
