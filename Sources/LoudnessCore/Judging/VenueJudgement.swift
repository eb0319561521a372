/// Everything ``VenueJudge`` derives for one venue: a judgement per check-in and the cells.
public struct VenueJudgement: Sendable, Equatable {
    /// One per input check-in, in input order.
    public let checkins: [CheckinJudgement]
    /// Cell estimates by venue-local weekday and hour (only cells with data), levels in dB with
    /// the model offsets applied (model-corrected dBFS).
    public let cells: [LocalHour: CellEstimate]
    /// Estimates for cells without data, from the venue's own pattern (``PatternEstimator``);
    /// never for a cell in ``cells``.
    public let estimates: [LocalHour: PatternEstimate]
    /// The sound character of measured cells with enough of it (``CellCharacter``); never of an
    /// estimate.
    public let characters: [LocalHour: CellCharacter]
    /// The venue's changes, known and found, oldest first (``VenueChangeDetector``).
    public var changes: [VenueChange] = []
    /// The residuals of the change in force, when asked for (the admin's chart).
    public var changeEvidence: [ChangeResidual] = []
    /// What each check-in weighed and why, in input order (empty when the judge was given none).
    public var weights: [CheckinWeight] = []
    /// A coordinated campaign of new devices at the venue, if the judge found one.
    public var campaign: Campaign? = nil

    /// `init(checkins:cells:estimates:characters:)`: memberwise.
    public init(
        checkins: [CheckinJudgement], cells: [LocalHour: CellEstimate], estimates: [LocalHour: PatternEstimate] = [:],
        characters: [LocalHour: CellCharacter] = [:]
    ) {
        self.checkins = checkins
        self.cells = cells
        self.estimates = estimates
        self.characters = characters
    }
}
