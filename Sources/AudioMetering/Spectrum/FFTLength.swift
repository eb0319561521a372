import Foundation

/// FFT lengths KissFFT does fast: only factors 2, 3 and 5 (a length with a large prime factor,
/// such as 22050 = 2·3²·5²·7², takes twice as long; one near a prime takes N² time).
enum FFTLength {
    /// The smallest multiple of `multiple` (itself 2, 4, …) at or above `target` with no prime
    /// factor above 5, and at least `multiple`.
    static func nice(atLeast target: Double, multipleOf multiple: Int) -> Int {
        var length = max(multiple, Int(target.rounded(.up)))
        length += (multiple - length % multiple) % multiple
        while !isFiveSmooth(length) { length += multiple }
        return length
    }

    static func isFiveSmooth(_ value: Int) -> Bool {
        var rest = value
        for factor in [2, 3, 5] {
            while rest % factor == 0 { rest /= factor }
        }
        return rest == 1
    }
}
