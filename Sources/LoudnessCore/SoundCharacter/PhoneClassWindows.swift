/// The classes a phone's own classifier gave a check-in (docs/ARCHITECTURE.md, "The phone's own
/// classes"), as pooling needs them: each window's first second (whole seconds after the
/// check-in's first sample, like its samples' offsets), its length and its class by
/// ``SoundLabelMapping/windowClass(_:vocabulary:)``. Windows are ascending and do not overlap.
public struct PhoneClassWindows: Sendable, Equatable {
    public var offsetsSeconds: [Int32]
    public var seconds: [Int16]
    public var classes: [SoundClass]

    /// `init(offsetsSeconds:seconds:classes:)`: the three lined up (else nil).
    public init?(offsetsSeconds: [Int32], seconds: [Int16], classes: [SoundClass]) {
        guard offsetsSeconds.count == seconds.count, seconds.count == classes.count else { return nil }
        self.offsetsSeconds = offsetsSeconds
        self.seconds = seconds
        self.classes = classes
    }

    /// As stored: classes as their ``SoundClass/index`` (nil when the arrays do not line up or an
    /// index is out of range).
    public init?(offsetsSeconds: [Int32], seconds: [Int16], classIndexes: [Int16]) {
        let all = SoundClass.allCases
        guard classIndexes.allSatisfy({ all.indices.contains(Int($0)) }) else { return nil }
        self.init(offsetsSeconds: offsetsSeconds, seconds: seconds, classes: classIndexes.map { all[Int($0)] })
    }

    /// The class of the window holding each of `offsets` (ascending seconds after the first
    /// sample), nil for a second no window holds.
    public func classes(at offsets: [Double]) -> [SoundClass?] {
        var result = [SoundClass?](repeating: nil, count: offsets.count)
        var window = 0
        for (position, offset) in offsets.enumerated() {
            while window < classes.count, Double(offsetsSeconds[window]) + Double(seconds[window]) <= offset {
                window += 1
            }
            guard window < classes.count else { break }
            if Double(offsetsSeconds[window]) <= offset { result[position] = classes[window] }
        }
        return result
    }
}
