import Logging

/// The engine tests' logger: warnings and worse only.
let engineTestLogger: Logger = {
    var logger = Logger(label: "hearclear.tests.engine")
    logger.logLevel = .warning
    return logger
}()
