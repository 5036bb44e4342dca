// Package peer holds what the fake servers share about their client
// connections.
package peer
