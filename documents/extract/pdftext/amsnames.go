package pdftext

// amsSymbolNames are glyph names of the AMS symbol font msam (amssymb's \backsim, \leqslant,
// \ulcorner …) that the Adobe Glyph List lacks; pdfTeX embeds msam10 without a ToUnicode map,
// its glyphs named so. Without them fortunes-mario's separator "∼∽" (cmsy's ∼, msam's
// revsimilar) read "∼", pdftotext reads it by the code, "∼v". Names the list has (square,
// angle, triangle, star) read by the list.
var amsSymbolNames = map[string]string{
	"revsimilar": "\u223D", "revasymptequal": "\u22CD", "dotplus": "\u2214", "circleS": "\u24C8",
	"rightanglenw": "\u231C", "rightanglene": "\u231D", "rightanglesw": "\u231E", "rightanglese": "\u231F",
	"intercal": "\u22BA", "circlering": "\u229A", "circleasterisk": "\u229B",
	"lessorequalslant": "\u2A7D", "greaterorequalslant": "\u2A7E", "lessdblequal": "\u2266",
	"greaterdblequal": "\u2267", "lessorgreater": "\u2276", "greaterorless": "\u2277",
	"primereverse": "\u2035", "equaldotleftright": "\u2252", "equaldotrightleft": "\u2253",
	"squareimage": "\u228F", "squareoriginal": "\u2290", "ringinequal": "\u2256",
	"lessequalgreater": "\u22DA", "greaterlessequal": "\u22DB", "arrowtripleleft": "\u21DA",
	"arrowtripleright": "\u21DB", "measuredangle": "\u2221", "sphericalangle": "\u2222",
	"multiopenleft": "\u22CB", "multiopenright": "\u22CC", "subsetdblequal": "\u2AC5",
	"supersetdblequal": "\u2AC6", "muchless": "\u22D8", "muchgreater": "\u22D9",
	"subsetdbl": "\u22D0", "supersetdbl": "\u22D1", "uniondbl": "\u22D3", "intersectiondbl": "\u22D2",
}
