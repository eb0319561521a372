import AudioClassification
import Foundation
import HearClearModel
import Logging
import Synchronization

/// Loads the AudioSet model that labels the sound character of uploaded recordings
/// (`POST /api/v2/meter`, `hearclear meter`), as `--sound-model` says:
///
/// * unset: `models/yamnet` under the resources folder when it is there; when it is not, the
///   spectra rules label recordings and a warning says how to get the model (`make deps`);
/// * `off`: the spectra rules, said once in the log;
/// * a folder: that model, and a folder that is missing or holds no usable model stops the start
///   (an operator who names a model means it).
public enum SoundModelLoading {
    /// Models loaded in this process, by folder: an immutable model serves every application built
    /// here (the tests build hundreds), loaded once.
    private static let loaded = Mutex<[String: AudioSetModel]>([:])

    /// The model `setting` says to use; nil when the spectra rules are to label recordings.
    public static func load(_ setting: String?, resources: String, logger: Logger) throws -> AudioSetModel? {
        if setting == "off" {
            logger.info("sound character by the spectra rules (--sound-model off)")
            return nil
        }
        let folder = setting ?? (resources as NSString).appendingPathComponent(AudioSetModel.defaultFolder)
        if setting == nil,
            !FileManager.default.fileExists(atPath: (folder as NSString).appendingPathComponent("model.onnx"))
        {
            logger.warning(
                "no AudioSet model: the sound character of uploaded recordings falls back to the spectra rules",
                metadata: ["looked_in": "\(folder)", "fix": "make deps (fetches it), or --sound-model off"])
            return nil
        }
        if let model = loaded.withLock({ $0[folder] }) { return model }
        let started = ContinuousClock.now
        do {
            let model = try AudioSetModel(folder: URL(fileURLWithPath: folder))
            loaded.withLock { $0[folder] = model }
            logger.info(
                "sound model loaded",
                metadata: [
                    "model": "\(AudioSetModel.name)", "folder": "\(folder)", "classes": "\(model.classNames.count)",
                    "seconds": "\((ContinuousClock.now - started) / .seconds(1))",
                ])
            return model
        } catch {
            throw ConfigurationError.invalid("sound model in \(folder): \(error)")
        }
    }
}
