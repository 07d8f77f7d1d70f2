// A SwiftData model file imports only SwiftData and still uses Date, UUID,
// URL and withObservationTracking; ModelStore re-exports the same modules so
// that such a file compiles with only its import changed.
@_exported import Foundation
@_exported import Observation
