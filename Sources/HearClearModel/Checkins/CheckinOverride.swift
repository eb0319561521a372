import Foundation
import LoudnessCore

/// An admin's standing decision on one check-in.
public struct CheckinOverride: Sendable, Equatable {
    public var decision: AggregationInput.AdminDecision
    public var username: String
    public var note: String?
    public var createdAt: Date

    public init(decision: AggregationInput.AdminDecision, username: String, note: String? = nil, createdAt: Date) {
        self.decision = decision
        self.username = username
        self.note = note
        self.createdAt = createdAt
    }
}
