// Package bus holds the formats of the relay's file-based bus (DESIGN 5,
// "The relay") and the producer API: any agent or script hands a message
// to a daemon by publishing one file in its outbox, with no library and no
// connection. This package knows the files; the relay engine that posts
// them lives elsewhere.
package bus
