#!/usr/bin/env python3
"""Makes the test files of PDF structures the readers' other tests do not reach (run it
here; Python 3 with the cryptography package, Debian's python3-cryptography):

incremental.pdf   a file saved twice more by incremental updates: the first replaces page
                  one's content stream (object 4, same number, new text) and the second
                  adds a third page; each update has its own xref section and /Prev.
incremental-xrefstm.pdf  a classic file updated once by an update whose cross-reference
                  section is a stream (/Type /XRef, /Prev): page one's content replaced.
acroform.pdf      an AcroForm with a filled text field (/V and an appearance stream /AP),
                  a filled field without an appearance (NeedAppearances true), a checked
                  box and an empty field; page text around them.
crypt-identity.pdf  AES-128 (V 4, R 4, empty user password) whose page 2 content stream has
                  its own /Crypt filter named /Identity: stored in the clear.
crypt-named.pdf   AES-128 whose streams are Identity by default (/StmF /Identity) and whose
                  page 2 content stream is encrypted through /Filter [/Crypt /FlateDecode]
                  with /DecodeParms [<< /Name /StdCF >> null].
annots.pdf        three links and a free-text note with its appearance; annots-objstm.pdf
                  (make.sh, qpdf) the same with the annotations inside an object stream.
owner-empty-r3.pdf  RC4-128 (R 3) with the user password "secret" and an empty owner
                  password, which opens it (pdftotext opens it so).
owner-empty-r6.pdf (make.sh, qpdf): the same in AES-256 (R 6, with /Perms).
"""
import hashlib, os, struct, zlib

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes


def pdf(objects, trailer_extra=b"", header=b"%PDF-1.6\n%\xe2\xe3\xcf\xd3\n"):
    """A PDF of objects {num: body bytes} with one xref table; returns bytes."""
    out = bytearray(header)
    offsets = {}
    for num in sorted(objects):
        offsets[num] = len(out)
        out += b"%d 0 obj\n" % num + objects[num] + b"\nendobj\n"
    return finish(out, offsets, max(objects) + 1, trailer_extra)


def finish(out, offsets, size, trailer_extra, prev=None):
    xref = len(out)
    out += b"xref\n"
    nums = sorted(offsets)
    if prev is None:
        out += b"0 %d\n0000000000 65535 f \n" % size
        for n in range(1, size):
            out += b"%010d 00000 n \n" % offsets[n]
    else:  # an update: one subsection per object changed
        for n in nums:
            out += b"%d 1\n%010d 00000 n \n" % (n, offsets[n])
    out += b"trailer\n<< /Size %d /Root 1 0 R" % size + trailer_extra
    if prev is not None:
        out += b" /Prev %d" % prev
    out += b" >>\nstartxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def update(base, objects, size, trailer_extra=b""):
    """base with an incremental update holding objects."""
    prev = int(base.rstrip().split(b"startxref")[-1].split()[0])
    out = bytearray(base)
    offsets = {}
    for num in sorted(objects):
        offsets[num] = len(out)
        out += b"%d 0 obj\n" % num + objects[num] + b"\nendobj\n"
    return finish(out, offsets, size, trailer_extra, prev)


def stream(data, extra=b""):
    return b"<< /Length %d%s >>\nstream\n" % (len(data), extra) + data + b"\nendstream"


FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"


def page(contents, parent=2, extra=b""):
    return (b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R"
            b" /Resources << /Font << /F1 3 0 R >> >>%s >>" % (parent, contents, extra))


def text(*lines):
    ops = b"BT /F1 12 Tf 72 714 Td 14 TL"  # each line ' moves down first
    for l in lines:
        ops += b" (" + l + b") '"
    return ops + b" ET"


def incremental():
    base = pdf({
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [5 0 R 7 0 R] /Count 2 >>",
        3: FONT,
        4: stream(text(b"The first version of page one, replaced by the update.")),
        5: page(4),
        6: stream(text(b"Page two stays as it was written first.")),
        7: page(6),
    })
    one = update(base, {4: stream(text(b"The updated page one, saved incrementally."))}, 8)
    two = update(one, {
        2: b"<< /Type /Pages /Kids [5 0 R 7 0 R 9 0 R] /Count 3 >>",
        8: stream(text(b"A third page added by the second update.")),
        9: page(8),
    }, 10)
    return two


def update_xref_stream(base, objects, size):
    """base with an incremental update whose cross-reference section is a stream (PDF 1.5)."""
    prev = int(base.rstrip().split(b"startxref")[-1].split()[0])
    out = bytearray(base)
    offsets = {}
    for num in sorted(objects):
        offsets[num] = len(out)
        out += b"%d 0 obj\n" % num + objects[num] + b"\nendobj\n"
    xnum = size
    offsets[xnum] = len(out)
    nums = sorted(offsets)
    rows = b"".join(struct.pack(">BIH", 1, offsets[n], 0) for n in nums)
    index = b" ".join(b"%d 1" % n for n in nums)
    out += b"%d 0 obj\n" % xnum + stream(rows, b" /Type /XRef /W [1 4 2] /Index [%s] /Size %d /Root 1 0 R /Prev %d" % (index, xnum + 1, prev)) + b"\nendobj\n"
    out += b"startxref\n%d\n%%%%EOF\n" % offsets[xnum]
    return bytes(out)


def incremental_xref_stream():
    base = pdf({
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [5 0 R] /Count 1 >>",
        3: FONT,
        4: stream(text(b"Text the xref stream update replaces.")),
        5: page(4),
    })
    return update_xref_stream(base, {6: stream(text(b"Page one as an update with an xref stream left it.")),
                                     5: page(6)}, 7)


def annotations():
    """Three links and a free-text note with its appearance; make.sh puts the annotations
    into an object stream (annots-objstm.pdf)."""
    note = stream(b"BT /F1 9 Tf 2 6 Td (Reviewer note: check the totals) Tj ET",
                  b" /Type /XObject /Subtype /Form /BBox [0 0 200 20] /Resources << /Font << /F1 3 0 R >> >>")
    link = b"<< /Type /Annot /Subtype /Link /Rect [72 %d 200 %d] /Border [0 0 0] /A << /S /URI /URI (https://example.org/) >> >>"
    return pdf({
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [5 0 R] /Count 1 >>",
        3: FONT,
        4: stream(text(b"Quarterly figures", b"See the appendix for the totals.")),
        5: page(4, extra=b" /Annots [6 0 R 7 0 R 8 0 R 9 0 R]"),
        6: link % (690, 700),
        7: link % (676, 686),
        8: link % (662, 672),
        9: b"<< /Type /Annot /Subtype /FreeText /Rect [300 600 500 620] /Contents (Reviewer note: check the totals)"
           b" /DA (/F1 9 Tf 0 g) /AP << /N 10 0 R >> >>",
        10: note,
    })


def acroform():
    ap = stream(b"/Tx BMC q BT /F1 10 Tf 2 4 Td (Ada Lovelace) Tj ET Q EMC",
                b" /Type /XObject /Subtype /Form /BBox [0 0 200 20] /Resources << /Font << /F1 3 0 R >> >>")
    check = stream(b"q BT /F1 10 Tf 2 3 Td (X) Tj ET Q",
                   b" /Type /XObject /Subtype /Form /BBox [0 0 14 14] /Resources << /Font << /F1 3 0 R >> >>")
    return pdf({
        1: b"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [6 0 R 8 0 R 9 0 R 11 0 R]"
           b" /NeedAppearances true /DA (/F1 10 Tf 0 g) /DR << /Font << /F1 3 0 R >> >> >> >>",
        2: b"<< /Type /Pages /Kids [5 0 R] /Count 1 >>",
        3: FONT,
        4: stream(text(b"Application form", b"Name:", b"", b"City:", b"", b"Member:", b"", b"Notes:")),
        5: page(4, extra=b" /Annots [6 0 R 8 0 R 9 0 R 11 0 R]"),
        6: b"<< /Type /Annot /Subtype /Widget /FT /Tx /T (name) /V (Ada Lovelace)"
           b" /Rect [120 681 320 697] /P 5 0 R /AP << /N 7 0 R >> /DA (/F1 10 Tf 0 g) >>",
        7: ap,
        8: b"<< /Type /Annot /Subtype /Widget /FT /Tx /T (city) /V (Marylebone)"
           b" /Rect [120 653 320 669] /P 5 0 R /DA (/F1 10 Tf 0 g) >>",
        9: b"<< /Type /Annot /Subtype /Widget /FT /Btn /T (member) /V /Yes /AS /Yes"
           b" /Rect [120 626 134 640] /P 5 0 R /AP << /N << /Yes 10 0 R >> >> >>",
        10: check,
        11: b"<< /Type /Annot /Subtype /Widget /FT /Tx /T (notes)"
            b" /Rect [120 597 320 613] /P 5 0 R /DA (/F1 10 Tf 0 g) >>",
    })


# AES-128 with the empty user password (ISO 32000-1 §7.6, V 4 R 4)
PAD = bytes.fromhex("28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a")
FILE_ID = bytes.fromhex("0123456789abcdef0123456789abcdef")
P = -4


def rc4(key, data):
    s = list(range(256)); j = 0
    for i in range(256):
        j = (j + s[i] + key[i % len(key)]) & 255; s[i], s[j] = s[j], s[i]
    i = j = 0; out = bytearray()
    for c in data:
        i = (i + 1) & 255; j = (j + s[i]) & 255; s[i], s[j] = s[j], s[i]
        out.append(c ^ s[(s[i] + s[j]) & 255])
    return bytes(out)


def keys(owner=b"owner"):
    k = hashlib.md5((owner + PAD)[:32]).digest()
    for _ in range(50):
        k = hashlib.md5(k).digest()
    o = rc4(k, PAD)
    for i in range(1, 20):
        o = rc4(bytes(b ^ i for b in k), o)
    h = hashlib.md5(PAD + o + struct.pack("<i", P) + FILE_ID).digest()
    for _ in range(50):
        h = hashlib.md5(h).digest()
    key = h[:16]
    u = hashlib.md5(PAD + FILE_ID).digest()
    for i in range(20):
        u = rc4(bytes(b ^ i for b in key), u)
    return key, o, u + bytes(16)


def aes(key, num, data):
    k = hashlib.md5(key + struct.pack("<I", num)[:3] + b"\0\0" + b"sAlT").digest()
    iv = bytes(range(16))
    padn = 16 - len(data) % 16
    enc = Cipher(algorithms.AES(k), modes.CBC(iv)).encryptor()
    return iv + enc.update(data + bytes([padn]) * padn) + enc.finalize()


def encrypted(name, stmf, page2):
    key, o, u = keys()
    enc = (b"<< /Filter /Standard /V 4 /R 4 /Length 128 /P %d /O <%s> /U <%s>"
           b" /CF << /StdCF << /CFM /AESV2 /AuthEvent /DocOpen /Length 16 >> >>"
           b" /StmF /%s /StrF /StdCF >>" % (P, o.hex().encode(), u.hex().encode(), stmf))
    one = text(b"Page one is encrypted with the document's default stream filter.")
    if stmf == b"StdCF":
        one = aes(key, 4, one)
    body2, extra2 = page2(key)
    objs = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [5 0 R 7 0 R] /Count 2 >>",
        3: FONT,
        4: stream(one),
        5: page(4),
        6: stream(body2, extra2),
        7: page(6),
        8: enc,
        9: b"<< /Title <%s> >>" % aes(key, 9, b"Crypt filters").hex().encode(),
    }
    ident = b" /ID [<%s> <%s>] /Encrypt 8 0 R /Info 9 0 R" % (FILE_ID.hex().encode(), FILE_ID.hex().encode())
    with open(name, "wb") as f:
        f.write(pdf(objs, ident))


def identity_page(key):
    return text(b"Page two has its own Identity crypt filter: it is stored in the clear."), \
        b" /Filter /Crypt /DecodeParms << /Name /Identity >>"


def named_page(key):
    data = aes(key, 6, zlib.compress(text(b"Page two is encrypted by the crypt filter it names, then deflated.")))
    return data, b" /Filter [/Crypt /FlateDecode] /DecodeParms [<< /Type /CryptFilterDecodeParms /Name /StdCF >> null]"


def owner_empty_r3(name):
    """RC4 128 (V 2, R 3) with the user password "secret" and an empty owner password."""
    user = (b"secret" + PAD)[:32]
    k = hashlib.md5(PAD).digest()  # the empty owner password's key (Algorithm 3)
    for _ in range(50):
        k = hashlib.md5(k).digest()
    o = user
    for i in range(20):
        o = rc4(bytes(b ^ i for b in k), o)
    h = hashlib.md5(user + o + struct.pack("<i", P) + FILE_ID).digest()
    for _ in range(50):
        h = hashlib.md5(h).digest()
    key = h[:16]
    u = hashlib.md5(PAD + FILE_ID).digest()
    for i in range(20):
        u = rc4(bytes(b ^ i for b in key), u)

    def enc(num, data):
        return rc4(hashlib.md5(key + struct.pack("<I", num)[:3] + b"\0\0").digest(), data)
    objs = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: b"<< /Type /Pages /Kids [5 0 R] /Count 1 >>",
        3: FONT,
        4: stream(enc(4, text(b"The owner password is empty, so the file opens without the user's."))),
        5: page(4),
        6: b"<< /Filter /Standard /V 2 /R 3 /Length 128 /P %d /O <%s> /U <%s> >>" % (
            P, o.hex().encode(), (u + bytes(16)).hex().encode()),
    }
    ident = b" /ID [<%s> <%s>] /Encrypt 6 0 R" % (FILE_ID.hex().encode(), FILE_ID.hex().encode())
    with open(name, "wb") as f:
        f.write(pdf(objs, ident))


if __name__ == "__main__":
    with open("incremental.pdf", "wb") as f:
        f.write(incremental())
    with open("incremental-xrefstm.pdf", "wb") as f:
        f.write(incremental_xref_stream())
    with open("annots.pdf", "wb") as f:
        f.write(annotations())
    with open("acroform.pdf", "wb") as f:
        f.write(acroform())
    encrypted("crypt-identity.pdf", b"StdCF", identity_page)
    encrypted("crypt-named.pdf", b"Identity", named_page)
    owner_empty_r3("owner-empty-r3.pdf")
