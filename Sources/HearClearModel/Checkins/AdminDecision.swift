/// An admin's decision on one check-in: counted whatever the judgement said, or left out.
public enum AdminDecision: String, Sendable {
    case include, exclude
}
