package redact

import (
	"fmt"
	"strings"
	"testing"
)

// A token hidden by an invisible character, full-width letters or %XX
// escapes is replaced as a whole, from its first character to its last;
// the text around it, and a kept scheme word or host, stay as written.
func TestContentFindsHiddenTokens(t *testing.T) {
	const zwsp, shy, bom, wj, zwj = "\u200b", "\u00ad", "\ufeff", "\u2060", "\u200d"
	cases := []struct{ in, want string }{
		{"token xoxb-1234" + zwsp + "-5678-AbCdEf end", "token [redacted] end"},
		{"xoxb-1234-56" + shy + "78-AbCdEf", "[redacted]"},
		{"x" + wj + "o" + zwj + "xb-1234-5678-AbCdEf.", "[redacted]."},
		{bom + "xoxb-1-2-3 at the start", bom + "[redacted] at the start"},
		{"ｘｏｘｂ－１２３４-5678-ＡｂＣｄ and more", "[redacted] and more"},
		{"（ｘａｐｐ-1-A0123-456-abc）", "（[redacted]）"},
		{"MTIzNDU2Nzg5MDEyMzQ1Njc4OTA%2EGhIjKl%2eabcdefghijklmnopqrstuvwxyz0123 leaked", "[redacted] leaked"},
		{"MTIzNDU2Nzg5MDEyMzQ1Njc4OTA．GhIjKl．abcdefghijklmnopqrstuvwxyz0123", "[redacted]"},
		{"Authorization: Ｂｅａｒｅｒ abcdefghijklmnopqrstuvwxyz012345", "Authorization: Ｂｅａｒｅｒ [redacted]"},
		{"Bot" + zwsp + " MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3", "Bot" + zwsp + " [redacted]"},
		{"https://hooks.slack.com/services/T0001%2FB0002/XyZsecret" + shy + "Webhook123", "https://hooks.slack.com/services/[redacted]"},
		{"https://discord.com/api/webhooks/123456789012345678/abc" + zwsp + "DEF-ghi", "https://discord.com/api/webhooks/123456789012345678/[redacted]"},
		{"日本語 xoxb-1-2-abc" + zwsp + "def 🙂 /home/alice/x", "日本語 [redacted] 🙂 ~/x"},
		{"two: xoxb-1" + zwsp + "-a and xapp-1" + shy + "-b", "two: [redacted] and [redacted]"},
		{"ligature: xoxb-1-2-ﬁne", "ligature: [redacted]"},
	}
	for _, c := range cases {
		got := Content(c.in, "/home/alice")
		if got != c.want {
			t.Errorf("Content(%q) = %q, want %q", c.in, got, c.want)
		}
		if again := Content(c.in, "/home/alice"); again != got {
			t.Errorf("Content(%q) gave %q, then %q", c.in, got, again)
		}
		if again := Content(got, "/home/alice"); again != got {
			t.Errorf("Content is not stable on %q: %q", got, again)
		}
	}
	if got, want := Tokens("invalid_auth for xoxb-1234-5678-Ab"+zwsp+"CdEf"), "invalid_auth for [redacted]"; got != want {
		t.Errorf("Tokens = %q, want %q", got, want)
	}
}

// Text without a token comes out byte for byte as it went in, whatever
// normalization would change in it.
func TestContentKeepsTextWithoutTokens(t *testing.T) {
	for _, s := range []string{
		"deploy done 👩‍💻 ❤️ 🏳️‍🌈 👍🏽",
		"日本語のテキスト。句読点、全角（かっこ）！",
		"ＦＵＬＬ　ＷＩＤＴＨ prose：ｏｋ？ １２３",
		"co\u00adoperate and zero\u200bwidth and \u2066isolated\u2069",
		"100% done, 50%2 off, %zz, %E2%9C%93 and a path /a%2Fb%2Ec",
		"ﬁle ﬂow ① ² ㎏ Ⅻ",
		"Ｂｅａｒｅｒ tokens are checked; the Ｂｏｔ restarted",
		"e\u0301 and \ufe0f alone, \xff\xfe bytes that are not UTF-8",
		"السلام عليكم and עברית",
	} {
		if got := Content(s, "/home/alice"); got != s {
			t.Errorf("Content(%q) = %q, want it unchanged", s, got)
		}
	}
}

// Every token, with every way of hiding it, comes out with nothing of
// its secret left, even as the patterns see the text, and a second pass
// finds nothing more.
func TestContentNeverLeaksHiddenTokens(t *testing.T) {
	secrets := []struct{ token, secret string }{
		{"xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUv", "AbCdEfGhIjKlMnOpQrStUv"},
		{"xapp-1-A0123456789-1234567890123-0a1b2c3d4e5f6a7b", "0a1b2c3d4e5f6a7b"},
		{"MTIzNDU2Nzg5MDEyMzQ1Njc4OTA.GhIjKl.abcdefghijklmnopqrstuvwxyz0123", "abcdefghijklmnopqrstuvwxyz0123"},
		{"Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_abc", "eyJhbGciOiJIUzI1NiJ9"},
		{"https://hooks.slack.com/services/T0001/B0002/XyZsecretWebhook123", "XyZsecretWebhook123"},
	}
	hiders := map[string]func(string) string{
		"zero-width space":  func(s string) string { return insertEvery(s, 5, "\u200b") },
		"soft hyphen":       func(s string) string { return insertEvery(s, 7, "\u00ad") },
		"word joiner + BOM": func(s string) string { return insertEvery(insertEvery(s, 3, "\u2060"), 11, "\ufeff") },
		"full width":        fullWidth,
		"encoded dots":      func(s string) string { return strings.ReplaceAll(s, ".", "%2E") },
		"encoded, lower":    func(s string) string { return strings.ReplaceAll(s, ".", "%2e") },
	}
	for _, s := range secrets {
		for name, hide := range hiders {
			for _, w := range []string{"%s", "token: `%s`.", "日本語 %s 🙂", `{"t":"%s"}`} {
				in := fmt.Sprintf(w, hide(s.token))
				out := Content(in, "")
				if v, ok := normalized(out); strings.Contains(out, s.secret) || ok && strings.Contains(v.text, s.secret) {
					t.Errorf("%s: Content(%q) = %q: the secret survived", name, in, out)
				}
				if again := Content(out, ""); again != out {
					t.Errorf("%s: a second pass over %q still scrubs: %q", name, out, again)
				}
			}
		}
	}
}

func insertEvery(s string, n int, ins string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && i%n == 0 {
			b.WriteString(ins)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// fullWidth writes ASCII letters and digits in their full-width forms.
func fullWidth(s string) string {
	return strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r - '!' + '！'
		}
		return r
	}, s)
}
