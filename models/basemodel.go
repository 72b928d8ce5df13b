package models

// IsBaseModel reports whether the model at path is a base model: its folder gives no prompt
// layout to chat with — no chat template (chat_template.jinja, chat_template.json or
// tokenizer_config.json's chat_template) and no PromptTemplate in Foundry's
// inference_model.json. Such a model continues text (plain completion) rather than
// answering messages. A path that is not a readable model folder is not a base model.
func IsBaseModel(path string) bool {
	f, err := Open(path, "")
	if err != nil {
		return false
	}
	if f.ChatTemplate != "" {
		return false
	}
	im, err := ReadInferenceModel(f.Dir)
	return err == nil && (im == nil || im.PromptTemplate == nil)
}
