package slack

import "strings"

// escaper applies Slack's three escapes and nothing else. With them no
// agent text can form a control sequence (<!channel>, <!here>,
// <!everyone>, <@U...>, <#C...>, <url|label>): every mention, broadcast
// and link Slack would act on needs a literal "<".
var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// escape returns text as Slack displays it literally.
func escape(text string) string { return escaper.Replace(text) }
