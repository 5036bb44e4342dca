package faketelegram

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTextLen is the service's limit on a bot's message text, in
// characters (code points) after trimming and entity parsing.
const maxTextLen = 4096

// text is a message text as the service would store it.
type text struct {
	text     string
	entities []Entity
	parse    string
}

// readText reads text, parse_mode and entities as sendMessage and
// editMessageText take them. Markup is not parsed: a parse mode is
// recorded and the text kept as sent. The text is trimmed of
// surrounding whitespace, as the service trims it, and the entities the
// service finds in it are added to those sent.
func readText(p params) (text, *answer) {
	mode := strings.ToLower(p["parse_mode"])
	switch mode {
	case "", "none", "markdown", "markdownv2", "html":
	default:
		return text{}, badRequest("unsupported parse_mode")
	}
	var sent []Entity
	if err := p.object("entities", &sent); err != nil {
		return text{}, badRequest(err.Error())
	}
	raw := p["text"]
	trimmed := strings.TrimLeftFunc(raw, unicode.IsSpace)
	shift := utf16Len(raw) - utf16Len(trimmed)
	trimmed = strings.TrimRightFunc(trimmed, unicode.IsSpace)
	if trimmed == "" {
		return text{}, badRequest("message text is empty")
	}
	if utf8.RuneCountInString(trimmed) > maxTextLen {
		return text{}, badRequest("message is too long")
	}
	end := utf16Len(trimmed)
	var kept []Entity
	for _, e := range sent {
		e.Offset -= shift
		if e.Offset >= 0 && e.Length > 0 && e.Offset+e.Length <= end {
			kept = append(kept, e)
		}
	}
	return text{text: trimmed, entities: mergeEntities(kept, findEntities(trimmed)), parse: p["parse_mode"]}, nil
}
