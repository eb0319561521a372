import HearClearEngine
import Logging

public enum CommandLogging {
    /// Sets up swift-log for the process (stdout, text or JSON lines) and returns the root logger.
    public static func bootstrap(_ configuration: EngineConfiguration) -> Logger {
        let level = configuration.logLevel
        switch configuration.logFormat {
        case .json:
            LoggingSystem.bootstrap { label in
                var handler = JSONLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
        case .text:
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardOutput(label: label)
                handler.logLevel = level
                return handler
            }
        }
        var logger = Logger(label: "hearclear")
        logger.logLevel = level
        return logger
    }
}
