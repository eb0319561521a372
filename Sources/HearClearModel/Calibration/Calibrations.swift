import Foundation
import LoudnessCore

/// A reference calibration of a phone model as stored.
public struct ReferenceCalibration: Sendable, Equatable {
    public enum Method: String, Sendable, Equatable, CaseIterable {
        case tone, meter
    }

    public var id: Int64
    public var model: String
    public var method: Method
    /// dB SPL = dBFS + this.
    public var absoluteOffsetDB: Double
    /// What the calibration measured, as JSON text (e.g. the tone's frequency and level).
    public var detail: String
    public var createdAt: Date
    public var createdBy: String
    public var withdrawnAt: Date?

    public init(
        id: Int64, model: String, method: Method, absoluteOffsetDB: Double, detail: String, createdAt: Date,
        createdBy: String, withdrawnAt: Date? = nil
    ) {
        self.id = id
        self.model = model
        self.method = method
        self.absoluteOffsetDB = absoluteOffsetDB
        self.detail = detail
        self.createdAt = createdAt
        self.createdBy = createdBy
        self.withdrawnAt = withdrawnAt
    }
}

/// One model as the admin and `hearclear calibrate models` see it.
public struct ModelCalibration: Sendable, Equatable {
    public var model: String
    /// Devices of the model, and check-ins from them.
    public var devices: Int
    /// The latest fit's estimate, if the model was in it.
    public var crowd: ModelOffsetFit?
    /// The offset in force (none: 0).
    public var inForce: ModelOffsetInForce?
    public var override: (offsetDB: Double, note: String?, setBy: String, setAt: Date)?
    public var references: [ReferenceCalibration]

    public static func == (a: Self, b: Self) -> Bool {
        a.model == b.model && a.devices == b.devices && a.crowd == b.crowd && a.inForce == b.inForce
            && a.override?.offsetDB == b.override?.offsetDB && a.references == b.references
    }

    public init(
        model: String, devices: Int, crowd: ModelOffsetFit? = nil, inForce: ModelOffsetInForce? = nil,
        override: (offsetDB: Double, note: String?, setBy: String, setAt: Date)? = nil,
        references: [ReferenceCalibration]
    ) {
        self.model = model
        self.devices = devices
        self.crowd = crowd
        self.inForce = inForce
        self.override = override
        self.references = references
    }
}

/// A crowd fit as stored.
public struct StoredCalibrationFit: Sendable, Equatable {
    public var id: Int64
    public var fittedAt: Date
    public var cells: Int
    public var observations: Int
    public var scaleDB: Double?
    public var changedModels: Int
    public var changedDevices: Int
    public var queuedVenues: Int

    public init(
        id: Int64, fittedAt: Date, cells: Int, observations: Int, scaleDB: Double? = nil, changedModels: Int,
        changedDevices: Int, queuedVenues: Int
    ) {
        self.id = id
        self.fittedAt = fittedAt
        self.cells = cells
        self.observations = observations
        self.scaleDB = scaleDB
        self.changedModels = changedModels
        self.changedDevices = changedDevices
        self.queuedVenues = queuedVenues
    }
}

/// What applying a fit changed.
public struct AppliedCalibration: Sendable, Equatable {
    public var fitID: Int64
    public var changedModels: [String]
    public var changedDevices: Int
    /// Venues queued to be judged again with the new offsets.
    public var queuedVenues: Int
    /// Devices whose trust moved (docs/ARCHITECTURE.md, "Devices that earn trust").
    public var changedTrust: Int
    /// Devices and models whose readings stepped (docs/ARCHITECTURE.md, "Phones that drift").
    public var deviceSteps: Int
    public var modelSteps: Int

    public init(
        fitID: Int64, changedModels: [String], changedDevices: Int, queuedVenues: Int, changedTrust: Int = 0,
        deviceSteps: Int = 0, modelSteps: Int = 0
    ) {
        self.fitID = fitID
        self.changedModels = changedModels
        self.changedDevices = changedDevices
        self.queuedVenues = queuedVenues
        self.changedTrust = changedTrust
        self.deviceSteps = deviceSteps
        self.modelSteps = modelSteps
    }
}
