/// The thresholds of the features the meter's rules (`SoundCharacterRules` in AudioMetering) and
/// the per-second rules (``SecondCharacterRules``) measure alike, in one place: both take their
/// defaults from here, so retuning one retunes the other (docs/ARCHITECTURE.md, "What kind of
/// loud" and "Sound character").
public enum SoundCharacterThresholds {
    /// Under this LAeq a window is `quiet`: −60 dBFS is 50 dB(A) at the default reference offset
    /// (110 dB), under the ~57 dB(A) where people start raising their voices.
    public static let quietBelowDBFS = -60.0
    /// Bass-heavy music: LCeq − LAeq at least this (the mark of a low-frequency problem) …
    public static let bassMinimumLcMinusLaDB = 10.0
    /// … and the bands 50–160 Hz at least this over 500 Hz–4 kHz.
    public static let bassMinimumLowFrequencyExcessDB = 4.0
    /// Babble: the bands 50–160 Hz at most this against 500 Hz–4 kHz (voices carry their energy
    /// from 200 Hz up).
    public static let babbleMaximumLowFrequencyExcessDB = -5.0
    /// The low-frequency excess compares the mean power of these bands (of
    /// ``SpectralSamples/nominalCentresHz``: 50 … 160 Hz) …
    public static let lowFrequencyBands = 0...5
    /// … with the mean power of these (500 Hz … 4 kHz).
    public static let lowFrequencyReferenceBands = 10...19
}
