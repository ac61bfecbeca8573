/// How an image without a url is drawn: a tint derived from its id, and its aspect ratio.
struct Placeholder {
    /// The fill, `#rrggbb`.
    var background: String
    /// The text colour on that fill, `#rrggbb`.
    var foreground: String
    /// The aspect ratio, e.g. "3:2" or "1.78".
    var ratio: String

    init(id: String, pixelWidth: Int, pixelHeight: Int) {
        let hue = Double(Self.hash(id) % 360)
        background = Self.color(hue: hue, saturation: 0.55, lightness: 0.84)
        foreground = Self.color(hue: hue, saturation: 0.45, lightness: 0.24)
        ratio = Self.ratio(width: pixelWidth, height: pixelHeight)
    }

    /// FNV-1a over the UTF-8 bytes: stable across runs and machines (unlike `Hasher`).
    static func hash(_ text: String) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in text.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return hash
    }

    /// "w:h" in lowest terms when both terms are small ("3:2", "16:9"), else w / h to two
    /// decimals ("1.78"); "?" for a size that is not positive.
    static func ratio(width: Int, height: Int) -> String {
        guard width > 0, height > 0 else { return "?" }
        let divisor = gcd(width, height)
        let (w, h) = (width / divisor, height / divisor)
        if w <= 32 && h <= 32 { return "\(w):\(h)" }
        let hundredths = Int((Double(width) / Double(height) * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    private static func gcd(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }

    /// An HSL colour (hue in degrees, the rest 0…1) as `#rrggbb`, so SVG viewers without CSS
    /// colour functions draw it too.
    static func color(hue: Double, saturation: Double, lightness: Double) -> String {
        let chroma = (1 - abs(2 * lightness - 1)) * saturation
        let sector = hue / 60
        let x = chroma * (1 - abs(sector.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double) =
            switch Int(sector) {
            case 0: (chroma, x, 0)
            case 1: (x, chroma, 0)
            case 2: (0, chroma, x)
            case 3: (0, x, chroma)
            case 4: (x, 0, chroma)
            default: (chroma, 0, x)
            }
        let m = lightness - chroma / 2
        let digits = Array("0123456789abcdef")
        var text = "#"
        for channel in [r, g, b] {
            let value = max(0, min(255, Int(((channel + m) * 255).rounded())))
            text.append(digits[value / 16])
            text.append(digits[value % 16])
        }
        return text
    }
}
