package spec

// DefaultMaxInboundFileBytes is maxInboundFileBytes when the spec says
// none: a file of a reply over it is recorded as skipped, not landed.
const DefaultMaxInboundFileBytes = 10 << 20
