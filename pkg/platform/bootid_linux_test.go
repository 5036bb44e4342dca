package platform_test

import (
	"regexp"
	"testing"

	"gjc.dev/reconciler/pkg/platform"
)

func TestBootID(t *testing.T) {
	id, err := platform.BootID()
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`).MatchString(id) {
		t.Errorf("BootID() = %q, want the kernel's boot UUID", id)
	}
	if again, _ := platform.BootID(); again != id {
		t.Errorf("BootID changed within one boot: %q then %q", id, again)
	}
}
