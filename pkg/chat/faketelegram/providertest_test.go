package faketelegram_test

import (
	"gjc.dev/reconciler/pkg/chat/faketelegram"
	"gjc.dev/reconciler/pkg/chat/providertest"
)

// The conformance suite drives the fake as it drives the others.
var (
	_ providertest.Server[faketelegram.Snapshot]          = (*faketelegram.Server)(nil)
	_ providertest.TransportServer[faketelegram.Snapshot] = (*faketelegram.Server)(nil)
)
