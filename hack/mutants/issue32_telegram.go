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
		{"telegram: a click whose Decide failed is neither answered nor confirmed", "pkg/chat/telegram/transport.go",
			"\t\tif v, err = t.opts.Inbound.Decide(ctx, c); err != nil {\n", "\t\tif v, err = t.opts.Inbound.Decide(ctx, c); false && err != nil {\n",
			"./pkg/chat/telegram", "TestLandDecidesClicks|TestAClickNotDecidedComesAgain"},
		{"telegram: the transport asks for callback queries", "pkg/chat/telegram/updates.go",
			"var allowedUpdates = []string{\"message\", \"edited_message\", \"callback_query\"}\n",
			"var allowedUpdates = []string{\"message\", \"edited_message\"}\n",
			"./pkg/chat/telegram", "TestClicksAreDecidedAndAnswered"},
		{"telegram: a click of another chat is not decided", "pkg/chat/telegram/click.go",
			"\treturn c, q.ID != \"\" && q.From.ID != 0 && id > 0 && strconv.FormatInt(chat, 10) == chatID\n",
			"\treturn c, q.ID != \"\" && q.From.ID != 0 && id > 0 && strconv.FormatInt(chat, 10) != \"\"\n",
			"./pkg/chat/telegram", "TestClickOf|TestLandDecidesClicks"},
	}...)
}
