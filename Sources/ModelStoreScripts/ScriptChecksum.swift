import Crypto
import Foundation

/// The checksum a store's history records for a script: the SHA-256 of the
/// file's bytes, as 64 lowercase hex digits. Its form never changes, so that
/// every history ever written still verifies.
enum ScriptChecksum {
    /// The digest of `data` in lowercase hex.
    static func hex(_ data: some DataProtocol) -> String {
        SHA256.hash(data: data).map { byte in
            let digits = String(byte, radix: 16)
            return byte < 16 ? "0" + digits : digits
        }.joined()
    }
}
