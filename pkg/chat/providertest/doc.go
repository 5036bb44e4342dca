// Package providertest is the providers' conformance suite, as
// ownershiptest is the stores' (DESIGN 5, "Providers"): every package
// under pkg/chat that implements chat.Provider runs it against its fake,
// from a test of its own, so what one provider is held to, every
// provider is.
package providertest
