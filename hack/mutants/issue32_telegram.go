package main

// The rules of issue 32's Telegram part: the fake's keyboards and
// callback queries must behave as the service's, and the provider's probe
// must carry an ask's buttons, or its exactly-once checks prove nothing.
func init() {
	mutants = append(mutants, []mutant{
		{"faketelegram: an edit without reply_markup removes the keyboard", "pkg/chat/faketelegram/edit.go",
			"\tm.Text, m.Entities, m.ParseMode, m.Keyboard = t.text, t.entities, t.parse, keyboard\n",
			"\tm.Text, m.Entities, m.ParseMode = t.text, t.entities, t.parse\n",
			"./pkg/chat/faketelegram", "TestInlineKeyboardThroughTheLibrary"},
		{"faketelegram: callback_data over 64 bytes is BUTTON_DATA_INVALID", "pkg/chat/faketelegram/keyboard.go",
			"\t\tif len(d) > maxCallbackData {\n", "\t\tif false && len(d) > maxCallbackData {\n",
			"./pkg/chat/faketelegram", "TestInlineKeyboardRefusals"},
		{"faketelegram: a callback query is answered once", "pkg/chat/faketelegram/callbacks.go",
			"\tif q.Answered || now.Sub(q.Time) > s.opts.CallbackTimeout {\n", "\tif now.Sub(q.Time) > s.opts.CallbackTimeout {\n",
			"./pkg/chat/faketelegram", "TestClickThroughTheLibrary"},
		{"faketelegram: a callback query too old is not answered", "pkg/chat/faketelegram/callbacks.go",
			"\tif q.Answered || now.Sub(q.Time) > s.opts.CallbackTimeout {\n", "\tif q.Answered {\n",
			"./pkg/chat/faketelegram", "TestCallbackQueryExpires"},
		{"telegram: the id probe carries an ask's buttons", "pkg/chat/telegram/lookup.go",
			"\t\t\tparams.ReplyMarkup = c.keyboard\n", "\t\t\t_ = c.keyboard\n",
			"./pkg/chat/telegram", "TestLookupFindsAnAskWithItsButtons"},
	}...)
}
