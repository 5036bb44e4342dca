package slack_test

import (
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/chat"
	"gjc.dev/reconciler/pkg/chat/providertest"
	"gjc.dev/reconciler/pkg/daemonproto"
)

// A second Socket Mode connection of the same app is TokenInUse at its
// first hello (Slack splits events between the two), and the warning
// clears at the first hello that counts one connection again.
func TestSecondConnectionIsTokenInUse(t *testing.T) {
	t.Parallel()
	f := startTransportFake(t)
	first, stopFirst, run := providertest.StartTransport(t, f.Transport(t))
	if v := first.WaitFor(t, true); v.Reason != "" {
		t.Fatalf("the app's only connection: %+v", v)
	}

	second, _, _ := providertest.StartTransport(t, f.Transport(t))
	v := second.Next(t, "a hello's report", func(v chat.Health) bool { return v.Healthy || v.Reason != "" })
	if v.Healthy || v.Reason != daemonproto.ReasonTokenInUse || !strings.Contains(v.Err, "splits events") || !strings.Contains(v.Err, "2 Socket Mode connections") {
		t.Fatalf("the second connection's first hello gave %+v, want TokenInUse saying Slack splits events between 2", v)
	}

	stopFirst()
	if err := run.Wait(t); err != nil {
		t.Fatal(err)
	}
	f.DropConnections()
	second.WaitFor(t, true)
}
