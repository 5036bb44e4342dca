package daemonlog

import (
	"testing"
	"time"

	"gjc.dev/reconciler/pkg/linefile"
)

func TestRender(t *testing.T) {
	r := Renderer{Loc: time.UTC, Omit: map[string]string{"daemon": "discord"}}
	cases := []struct {
		name, in  string
		truncated bool
		want      string
	}{
		{"zap info with fields",
			`{"level":"info","ts":"2026-01-02T03:04:05.678901+01:00","msg":"heartbeat","daemon":"discord","pid":4242,"healthy":true}`, false,
			"2026-01-02 02:04:05.678 INFO  heartbeat pid=4242 healthy=true"},
		{"error with a quoted value",
			`{"level":"error","ts":"2026-01-02T03:04:05Z","msg":"daemon exiting","daemon":"discord","error":"lookup discord.com: no such host","code":1}`, false,
			`2026-01-02 03:04:05.000 ERROR daemon exiting error="lookup discord.com: no such host" code=1`},
		{"another daemon's name is kept",
			`{"level":"info","ts":"2026-01-02T03:04:05Z","msg":"m","daemon":"slack"}`, false,
			"2026-01-02 03:04:05.000 INFO  m daemon=slack"},
		{"epoch time, object field",
			`{"level":"debug","ts":1767323045.5,"msg":"relay","relay":{"pending": 2, "failed":0}}`, false,
			`2026-01-02 03:04:05.500 DEBUG relay relay={"pending":2,"failed":0}`},
		{"field order kept, empty string quoted",
			`{"msg":"x","b":"2","a":"","c":null}`, false,
			`x b=2 a="" c=null`},
		{"escape sequences in the message are shown, not run",
			`{"level":"info","msg":"evil \u001b[2J cleared"}`, false,
			`INFO  evil \x1b[2J cleared`},
		{"escape sequences in a field are quoted",
			`{"msg":"m","k":"a\u001bb"}`, false,
			`m k="a\x1bb"`},
		{"a Go panic is shown as it is", "panic: runtime error: index out of range [3] with length 2", false,
			"panic: runtime error: index out of range [3] with length 2"},
		{"raw control characters escaped", "goroutine 1 [running]:\x1b]0;title\x07", false,
			`goroutine 1 [running]:\x1b]0;title\a`},
		{"JSON without a message is not an entry", `{"level":"info"}`, false, `{"level":"info"}`},
		{"a JSON array is not an entry", `[1,2]`, false, `[1,2]`},
		{"two objects on a line are not an entry", `{"msg":"a"}{"msg":"b"}`, false, `{"msg":"a"}{"msg":"b"}`},
		{"invalid UTF-8", "bad \xff\xfe bytes", false, `bad \xff\xfe bytes`},
		{"truncated line says so", `{"msg":"long`, true, `{"msg":"long …[line cut at its cap]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := r.Render(linefile.Line{Text: []byte(c.in), Truncated: c.truncated}); got != c.want {
				t.Errorf("Render(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
		})
	}
}
