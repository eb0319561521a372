import Foundation
import HearClearModel
import Hummingbird
import Mustache

/// A resources folder of Mustache templates and the files served beside them (`Admin/`,
/// `Pages/`), read once at start, synchronously (so `buildRouter` stays so), so that a mistake
/// stops the start with a message naming the file. `what` names the folder's owner in messages,
/// e.g. "admin" or "page".
public struct TemplateFolder {
    public let directory: String
    public let what: String

    public init(_ directory: String, what: String) {
        self.directory = directory
        self.what = what
    }

    /// Every `*.mustache` of the folder, named by its file name, having at least `required`.
    public func templates(required: [String]) throws -> MustacheLibrary {
        var library = MustacheLibrary()
        let files =
            (try? FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".mustache") }) ?? []
        for file in files.sorted() {
            let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            do {
                try library.register(text, named: String(file.dropLast(".mustache".count)))
            } catch {
                throw ConfigurationError.invalid("\(what) template \(directory)/\(file) does not parse: \(error)")
            }
        }
        for name in required where library.getTemplate(named: name) == nil {
            throw ConfigurationError.invalid("\(what) template \(directory)/\(name).mustache is missing")
        }
        return library
    }

    /// The file `name` of the folder (`kind`, e.g. "style sheet", names it in the message).
    public func file(_ name: String, kind: String) throws -> ByteBuffer {
        guard let data = FileManager.default.contents(atPath: directory + "/" + name) else {
            throw ConfigurationError.invalid("\(what) \(kind) \(directory)/\(name) is missing")
        }
        return ByteBuffer(bytes: data)
    }
}
