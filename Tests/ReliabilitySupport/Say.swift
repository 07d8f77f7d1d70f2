import Foundation

/// Writes one line to stdout at once.
package func say(_ line: String) {
    let text = line + "\n"
    text.utf8CString.withUnsafeBufferPointer { buffer in
        var offset = 0
        let count = buffer.count - 1
        while offset < count {
            let written = write(STDOUT_FILENO, buffer.baseAddress! + offset, count - offset)
            if written <= 0 { return }
            offset += written
        }
    }
}
