package ownership

import (
	"encoding/json"
	"strings"
	"testing"

	"gjc.dev/reconciler/pkg/spec"
)

func TestStateMarshalBytes(t *testing.T) {
	s := State{
		Version: 1, Kind: "discord", PID: 4242, OwnerID: "4100-abc", Identity: "7040273bec62d43f",
		Incarnation: "linux:98231", StartedAt: 1764450000000, HeartbeatAt: 1764450005000,
		TransportHealthy: true, Generation: gen(7),
	}
	want := `{"version":1,"kind":"discord","pid":4242,"ownerId":"4100-abc","identity":"7040273bec62d43f",` +
		`"incarnation":"linux:98231","startedAt":1764450000000,"heartbeatAt":1764450005000,"transportHealthy":true,"generation":7}` + "\n"
	if got := string(s.Marshal()); got != want {
		t.Fatalf("Marshal:\n got %s\nwant %s", got, want)
	}
	s.StoppedAt, s.TransportHealthy = ms(1764450009000), false
	s.TransportError = "closed"
	s.Terminated = &Terminated{Reason: "InvalidCredentials", Message: "close 4004"}
	want = strings.TrimSuffix(want, "\n")
	want = strings.Replace(want, `"transportHealthy":true,"generation":7}`,
		`"transportHealthy":false,"generation":7,"stoppedAt":1764450009000,"transportError":"closed",`+
			`"terminated":{"reason":"InvalidCredentials","message":"close 4004"}}`, 1) + "\n"
	if got := string(s.Marshal()); got != want {
		t.Fatalf("Marshal released:\n got %s\nwant %s", got, want)
	}
	s.Generation = spec.NoGeneration
	if got := string(s.Marshal()); strings.Contains(got, "generation") {
		t.Fatalf("legacy generation written: %s", got)
	}
	lock := (&OwnerLock{PID: 4242, Incarnation: "linux:98231", CreatedAt: 1764450000000}).Marshal()
	if want := `{"pid":4242,"incarnation":"linux:98231","createdAt":1764450000000}` + "\n"; string(lock) != want {
		t.Fatalf("lock: %s", lock)
	}
}

// JSON.stringify escapes only ", \, and control characters (\b \f \n \r \t
// short, the rest \u00xx); encoding/json also escapes <, >, & and
// U+2028/U+2029, which would make the bytes differ from the reference's.
func TestMarshalEscapesLikeJSONStringify(t *testing.T) {
	s := State{OwnerID: "a<b>&c\u2028\u2029\"\\\b\f\n\r\t\x01\x1f\x7fé😀", Identity: "bad\xffutf8"}
	got := string(s.Marshal())
	for _, want := range []string{
		`"ownerId":"a<b>&c` + "\u2028\u2029" + `\"\\\b\f\n\r\t\u0001\u001f` + "\x7fé😀" + `"`,
		`"identity":"bad` + "\ufffd" + `utf8"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("Marshal = %s\nmissing %s", got, want)
		}
	}
	var back map[string]any
	if err := json.Unmarshal([]byte(got), &back); err != nil || back["ownerId"] != s.OwnerID {
		t.Fatalf("does not read back: %v %q", err, back["ownerId"])
	}
}

func gen(g spec.Generation) spec.OptGeneration { return g.Opt() }

func ms(t int64) *int64 { return &t }
