//! TEMPORARY stand-in for bidscan-json's `Reader`/`Error`/`ErrorKind` (contract API) until that crate lands;
//! decodes with serde_json. Removed once `bidscan_json::Reader` exists.
#![allow(missing_docs, dead_code, unreachable_pub)]

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    Syntax,
    Eof,
    Custom,
}

#[derive(Debug)]
pub struct Error(serde_json::Error);

impl Error {
    pub fn kind(&self) -> ErrorKind {
        match self.0.classify() {
            serde_json::error::Category::Eof => ErrorKind::Eof,
            serde_json::error::Category::Data => ErrorKind::Custom,
            _ => ErrorKind::Syntax,
        }
    }
    pub fn byte(&self) -> usize {
        0
    }
    pub fn line(&self) -> usize {
        self.0.line()
    }
    pub fn column(&self) -> usize {
        self.0.column()
    }
    pub fn path(&self) -> Option<&str> {
        None
    }
    pub fn message(&self) -> String {
        self.0.to_string()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Error {}

#[derive(Default)]
pub struct Reader;

impl Reader {
    pub fn decode<'de, T: serde::Deserialize<'de>>(
        &mut self,
        input: &'de mut [u8],
    ) -> Result<T, Error> {
        let input: &'de [u8] = input;
        serde_json::from_slice(input).map_err(Error)
    }
}
