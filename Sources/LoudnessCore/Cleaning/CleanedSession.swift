/// The result of ``SessionCleaner/clean(_:)``: a verdict per second and for the whole check-in.
public struct CleanedSession: Sendable, Equatable {
    /// One entry per sample, in sample order: `nil` when the second was kept, else why not.
    public let rejections: [SecondRejection?]
    /// The whole check-in's verdict.
    public let verdict: CheckinVerdict

    /// `kept`: one flag per sample, true when the second was kept.
    public var kept: [Bool] { rejections.map { $0 == nil } }
    /// `validSeconds`: number of kept seconds.
    public var validSeconds: Int { rejections.count { $0 == nil } }
    /// `totalSeconds`: number of samples.
    public var totalSeconds: Int { rejections.count }

    /// `count(of:)`: how many seconds were removed for `reason`.
    public func count(of reason: SecondRejection) -> Int {
        rejections.count { $0 == reason }
    }

    /// `init(rejections:verdict:)`: memberwise.
    public init(rejections: [SecondRejection?], verdict: CheckinVerdict) {
        self.rejections = rejections
        self.verdict = verdict
    }
}
