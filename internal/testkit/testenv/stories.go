package testenv

// The reference greedy completion of the real stories260K model (shared/models/stories260K,
// README.md): the prompt, its ids as Hugging Face tokenizers encodes them with the
// tokenizer's special tokens, and the 40 ids and text that greedy decoding continues with.
const (
	StoriesPrompt = "Once upon a time"
	StoriesText   = ", there was a little girl named Lily. She loved to play outside in the park. One day, she saw a big, red ball."
)

var (
	StoriesPromptIDs = []int{1, 403, 407, 261, 378}
	StoriesIDs       = []int{432, 383, 286, 261, 376, 298, 315, 421, 395, 317, 426, 338, 401, 396, 267, 337, 410, 408, 419,
		292, 411, 322, 265, 282, 295, 433, 426, 385, 328, 432, 358, 394, 261, 370, 432, 352, 266, 268, 388, 426}
)
