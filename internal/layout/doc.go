// Package layout reads the module's own source and reports how its big
// lines hold: which package imports which, where code switches on a chat
// provider, where a capability is found by type assertion, and how long
// packages and functions are. Its test states the import and provider rules
// of the design's layout so a change that breaks one fails CI;
// hack/corestats prints the figures.
package layout
