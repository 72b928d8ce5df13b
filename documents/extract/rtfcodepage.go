package extract

import (
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

// The code pages of an RTF document's \'hh bytes: the document's (\ansicpgN, or the
// character set \ansi, \mac, \pc, \pca names) and a font's (\fcharsetN, \cpgN).

// charsetPage is the Windows code page of an RTF font's character set (\fcharsetN), 0 for
// the document's own (ANSI, default, symbol and unknown sets).
func charsetPage(charset int) int {
	switch charset {
	case 77:
		return 10000
	case 78: // Mac Japanese
		return 10001
	case 79: // Mac Korean
		return 10003
	case 80: // Mac Chinese (Simplified)
		return 10008
	case 81: // Mac Chinese (Traditional)
		return 10002
	case 128:
		return 932
	case 129:
		return 949
	case 134:
		return 936
	case 136:
		return 950
	case 161:
		return 1253
	case 162:
		return 1254
	case 163:
		return 1258
	case 177:
		return 1255
	case 178:
		return 1256
	case 186:
		return 1257
	case 204:
		return 1251
	case 222:
		return 874
	case 238:
		return 1250
	case 254:
		return 437
	}
	return 0
}

// codePage is the decoder of a Windows code page number, Windows-1252 when unknown: the
// Windows and Mac pages, the DOS pages (\pc is 437, \pca 850), ISO 8859 (28591–28606),
// KOI8 and the CJK pages as Word writes them, and Unicode's (UTF-8, UTF-16 little and
// big endian: a font's \cpg65001, \cpg1200, \cpg1201).
func codePage(n int) encoding.Encoding {
	if n > 28590 && n <= 28606 {
		if e := iso8859(n - 28590); e != nil {
			return e
		}
	}
	switch n {
	case 932, 10001: // the Mac's double-byte pages are Shift-JIS, GB2312, EUC-KR, Big5
		return japanese.ShiftJIS
	case 936, 10008, 20936, 51936:
		return simplifiedchinese.GBK
	case 54936:
		return simplifiedchinese.GB18030
	case 52936:
		return simplifiedchinese.HZGB2312
	case 949, 10003, 51949:
		return korean.EUCKR
	case 950, 10002:
		return traditionalchinese.Big5
	case 20932, 51932:
		return japanese.EUCJP
	case 50220, 50221, 50222:
		return japanese.ISO2022JP
	case 437:
		return charmap.CodePage437
	case 850:
		return charmap.CodePage850
	case 852:
		return charmap.CodePage852
	case 855:
		return charmap.CodePage855
	case 858:
		return charmap.CodePage858
	case 860:
		return charmap.CodePage860
	case 862:
		return charmap.CodePage862
	case 863:
		return charmap.CodePage863
	case 865:
		return charmap.CodePage865
	case 866:
		return charmap.CodePage866
	case 874:
		return charmap.Windows874
	case 1250:
		return charmap.Windows1250
	case 1251:
		return charmap.Windows1251
	case 1253:
		return charmap.Windows1253
	case 1254:
		return charmap.Windows1254
	case 1255:
		return charmap.Windows1255
	case 1256:
		return charmap.Windows1256
	case 1257:
		return charmap.Windows1257
	case 1258:
		return charmap.Windows1258
	case 10000:
		return charmap.Macintosh
	case 10007, 10017: // Mac Cyrillic, Mac Ukrainian
		return charmap.MacintoshCyrillic
	case 20866:
		return charmap.KOI8R
	case 21866:
		return charmap.KOI8U
	case 38598: // ISO 8859-8, logical order
		return charmap.ISO8859_8
	case 65001: // UTF-8, a font's \cpg65001
		return unicode.UTF8
	case 1200:
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
	case 1201:
		return unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)
	}
	return charmap.Windows1252
}

// iso8859 is ISO 8859's part n, nil for one Go does not have (12, which was never
// published, and 11, Thai: Windows-874 stands for it).
func iso8859(n int) encoding.Encoding {
	parts := []encoding.Encoding{1: charmap.ISO8859_1, charmap.ISO8859_2, charmap.ISO8859_3,
		charmap.ISO8859_4, charmap.ISO8859_5, charmap.ISO8859_6, charmap.ISO8859_7,
		charmap.ISO8859_8, charmap.ISO8859_9, charmap.ISO8859_10, charmap.Windows874, nil,
		charmap.ISO8859_13, charmap.ISO8859_14, charmap.ISO8859_15, charmap.ISO8859_16}
	if n < 1 || n >= len(parts) {
		return nil
	}
	return parts[n]
}
