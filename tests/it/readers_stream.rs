//! Large JSONL files generated at test time are streamed: transcripts come out while the
//! file is still being read, and every call keeps its line.

use std::cell::Cell;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::rc::Rc;

use toolspec::transcript::{Format, Reader};

/// A reader that counts the bytes handed out.
struct Counting<R> {
    inner: R,
    seen: Rc<Cell<usize>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.seen.set(self.seen.get() + n);
        Ok(n)
    }
}

fn chat_line(i: usize) -> String {
    let pad = "lorem ipsum ".repeat(20);
    format!(
        concat!(
            r#"{{"messages":[{{"role":"user","content":"request {i} {pad}"}},"#,
            r#"{{"role":"assistant","content":null,"tool_calls":[{{"id":"call_{i}","type":"function","function":{{"name":"lookup","arguments":"{{\"n\":{i}}}"}}}}]}},"#,
            r#"{{"role":"tool","tool_call_id":"call_{i}","content":"result {i}"}}]}}"#
        ),
        i = i,
        pad = pad
    )
}

#[test]
fn large_dataset_is_streamed_line_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    let n = 40_000;
    {
        let mut w = BufWriter::new(File::create(&path).unwrap());
        for i in 0..n {
            writeln!(w, "{}", chat_line(i)).unwrap();
        }
    }
    let total = std::fs::metadata(&path).unwrap().len() as usize;
    assert!(total > 16 << 20, "generated {total} bytes");
    let seen = Rc::new(Cell::new(0));
    let reader = BufReader::with_capacity(
        64 << 10,
        Counting {
            inner: File::open(&path).unwrap(),
            seen: seen.clone(),
        },
    );
    let mut count = 0usize;
    let mut first_emitted_at = None;
    Reader::new()
        .read_stream("big.jsonl", reader, |t| {
            first_emitted_at.get_or_insert(seen.get());
            assert_eq!(t.format, Format::OpenaiChat);
            let rec = t.record.unwrap();
            assert_eq!(rec.line, count + 1);
            assert_eq!(t.calls.len(), 1);
            assert_eq!(t.calls[0].args["n"], count);
            assert_eq!(
                t.calls[0].output.as_ref().unwrap(),
                &format!("result {count}")
            );
            assert!(t.calls[0].span.start > rec.span.start && t.calls[0].span.end < rec.span.end);
            count += 1;
        })
        .unwrap();
    assert_eq!(count, n);
    // The first transcript came out after reading a small prefix, not the whole file.
    assert!(
        first_emitted_at.unwrap() < total / 100,
        "first emitted after {first_emitted_at:?} of {total}"
    );
}

#[test]
fn large_session_is_one_transcript_with_line_spans() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rollout.jsonl");
    let n = 20_000;
    let mut offsets = Vec::with_capacity(n);
    {
        let mut w = BufWriter::new(File::create(&path).unwrap());
        let mut off = 0usize;
        let meta = r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s"}}"#;
        writeln!(w, "{meta}").unwrap();
        off += meta.len() + 1;
        for i in 0..n {
            let call = format!(
                r#"{{"timestamp":"t","type":"response_item","payload":{{"type":"function_call","name":"shell","arguments":"{{\"command\":[\"echo\",\"{i}\"]}}","call_id":"c{i}"}}}}"#
            );
            let out = format!(
                r#"{{"timestamp":"t","type":"response_item","payload":{{"type":"function_call_output","call_id":"c{i}","output":"Exit code: {}\nWall time: 0.1 seconds\nOutput:\n{i}\n"}}}}"#,
                i % 7 == 0
            );
            let out = out
                .replace("Exit code: true", "Exit code: 1")
                .replace("Exit code: false", "Exit code: 0");
            offsets.push((off, off + call.len()));
            writeln!(w, "{call}\n{out}").unwrap();
            off += call.len() + out.len() + 2;
        }
    }
    let ts = Reader::new().read_file(&path).unwrap();
    assert_eq!(ts.len(), 1);
    let calls = &ts[0].calls;
    assert_eq!(calls.len(), n);
    for (i, c) in calls.iter().enumerate() {
        assert_eq!(c.id.as_deref(), Some(format!("c{i}").as_str()));
        assert_eq!(c.is_error, i % 7 == 0);
        assert_eq!((c.span.start, c.span.end), offsets[i]);
    }
    // Streaming gives the same result as reading the bytes whole.
    let mut streamed = Vec::new();
    Reader::new()
        .read_stream(
            "rollout.jsonl",
            BufReader::new(File::open(&path).unwrap()),
            |t| streamed.push(t),
        )
        .unwrap();
    assert_eq!(streamed, ts);
}
