/// Text put into a `LIKE` pattern.
enum LikePattern {
    /// `text` with LIKE's wildcards (`%`, `_`) and its escape character (`\`, the default) taken
    /// literally.
    static func escaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "\\" || character == "%" || character == "_" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}
