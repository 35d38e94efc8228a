import JOSE
import OIDCTLSTransport

/// The `key --table` view: one line per key of a set, the skipped ones with the reason.
enum KeyTable {
    static func render(_ source: KeySource) -> String {
        var rows: [[String]] = [["#", "kid", "type", "use", "alg", "thumbprint (RFC 7638, SHA-256)"]]
        var notes: [String] = []
        func row(_ index: Int, _ key: JWK) -> [String] {
            let type = key.keyType == .rsa || key.keyType == .oct ? "\(key.keyType) \(key.sizeInBits)" : "\(key.keyType)"
            return ["\(index)", key.keyID ?? "-", type, key.use ?? "-", key.algorithm ?? "-", key.thumbprint()]
        }
        switch source {
        case .single(let key):
            rows.append(row(0, key))
        case .set(let set):
            // Document order: the usable keys fill the positions the skipped ones leave.
            var usable = set.keys.makeIterator()
            let total = set.keys.count + set.skipped.count
            for index in 0..<total {
                if let skipped = set.skipped.first(where: { $0.index == index }) {
                    rows.append(["\(index)", skipped.keyID ?? "-", "skipped", "-", "-", "-"])
                    notes.append("key #\(index) skipped: \(skipped.error)")
                } else if let key = usable.next() {
                    rows.append(row(index, key))
                }
            }
        }
        var widths = [Int](repeating: 0, count: rows[0].count)
        let safe = rows.map { $0.map { TerminalText.escape($0) } }
        for cells in safe { for (column, cell) in cells.enumerated() { widths[column] = max(widths[column], cell.count) } }
        var text = ""
        for cells in safe {
            var line = ""
            for (column, cell) in cells.enumerated() {
                line += column == cells.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count + 2)
            }
            text += line + "\n"
        }
        for note in notes { text += TerminalText.escape(note) + "\n" }
        return text
    }
}
