package pdftext

import (
	"strings"
	"testing"
)

// TestReversedSectionNumbers: dotted Arabic-Indic numbers at line starts are turned around
// when the document's sequence varies their first part fastest (XePersian, lshort-persian's
// contents), and kept where it varies the last part, or where too few tell.
func TestReversedSectionNumbers(t *testing.T) {
	tests := []struct {
		name  string
		pages []string
		want  []string
	}{
		{"XePersian's contents: the first part varies fastest",
			[]string{"۱.۱ عنوان\n۱.۱.۱ تک\n۲.۱.۱ لاتک\n۲.۱ مبانی\n۱.۲.۱ نویسنده\n۲.۲.۱ طراحی", "۳.۲.۱ مزیتها\nπ ≈ ۳.۱۴\n۴.۲.۱ توضیحات ۲.۱.۱"},
			[]string{"۱.۱ عنوان\n۱.۱.۱ تک\n۱.۱.۲ لاتک\n۱.۲ مبانی\n۱.۲.۱ نویسنده\n۱.۲.۲ طراحی", "۱.۲.۳ مزیتها\nπ ≈ ۳.۱۴\n۱.۲.۴ توضیحات ۲.۱.۱"}},
		{"a numbering whose last part varies stays",
			[]string{"۱.۱ الف\n۱.۲ ب\n۱.۳ ج\n۱.۴ د\n۲.۱ ه\n۲.۲ و"},
			[]string{"۱.۱ الف\n۱.۲ ب\n۱.۳ ج\n۱.۴ د\n۲.۱ ه\n۲.۲ و"}},
		{"too few steps tell nothing",
			[]string{"۱.۲ الف\n۲.۲ ب\n۳.۲ ج"},
			[]string{"۱.۲ الف\n۲.۲ ب\n۳.۲ ج"}},
		{"Western digits and decimals at line starts are not section numbers",
			[]string{"1.2 a\n2.2 b\n3.2 c\n4.2 d\n5.2 e\n۳.۱۴۱۵؛ عدد"},
			[]string{"1.2 a\n2.2 b\n3.2 c\n4.2 d\n5.2 e\n۳.۱۴۱۵؛ عدد"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pages := make([]Page, len(tc.pages))
			for i, s := range tc.pages {
				pages[i].Text = s
			}
			reversedSectionNumbers(pages)
			for i := range pages {
				if pages[i].Text != tc.want[i] {
					t.Errorf("page %d:\n got %q\nwant %q", i+1, pages[i].Text, tc.want[i])
				}
			}
		})
	}
	if _, _, ok := leadingSectionNumber(strings.Repeat("۱", 8) + ".۱ x"); ok {
		t.Error("an eight-digit part read as a section number")
	}
}
