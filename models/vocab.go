package models

import "fmt"

// CheckVocab says whether a tokenizer of tok ids fits a model whose logits are logits wide
// and whose configuration declares declared ids (0: unknown, the logits width counts). The
// tokenizer must name every id the model emits: none past the logits, and no fewer than the
// model's vocabulary bar its padding, which is at most 1% of it and never over 1,024 ids
// (Qwen3 pads 151,669 tokens to 151,936; Llama 3's 128,256 tokens in a Qwen3 folder leave
// 23,680 ids without text).
func CheckVocab(tok, logits, declared int) error {
	if tok > logits {
		return fmt.Errorf("the tokenizer has %d tokens but the model's logits are %d wide", tok, logits)
	}
	vocab := logits
	if declared > 0 && declared <= logits {
		vocab = declared
	}
	if pad := vocab - tok; pad > min(1024, vocab/100) {
		return fmt.Errorf("the tokenizer has %d tokens but the model's vocabulary has %d: %d ids the model can emit have no text", tok, vocab, pad)
	}
	return nil
}
