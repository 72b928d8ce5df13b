"""Decodes GPT-2 token ids to text from tokenizer.json's vocabulary alone (byte-level BPE:
each vocabulary string maps printable characters back to bytes), independent of EdgeChat's
tokenizer.

usage: gpt2text.py TOKENIZER.json ID [ID ...]   (prints the text as a JSON string)"""
import json
import sys


def byte_decoder():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def main():
    vocab = json.load(open(sys.argv[1]))["model"]["vocab"]
    inv = {v: k for k, v in vocab.items()}
    dec = byte_decoder()
    raw = bytes(dec[ch] for i in sys.argv[2:] for ch in inv[int(i)])
    json.dump(raw.decode("utf-8", errors="replace"), sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
