package doctor

import (
	"strings"
	"testing"
)

func TestPrint(t *testing.T) {
	lines := []Line{Pass("token", "bot relay (1)"), Fail("scope chat:write", "add the scope and reinstall the app")}
	var b strings.Builder
	Print(&b, "slack (slack):", lines)
	want := "slack (slack):\n  ok    token: bot relay (1)\n  FAIL  scope chat:write: add the scope and reinstall the app\n"
	if b.String() != want {
		t.Errorf("Print:\n%s\nwant:\n%s", b.String(), want)
	}
	if Failed(lines) != 1 {
		t.Errorf("Failed = %d", Failed(lines))
	}
}
