//! A tiny terminal emulator for tests: enough of VT100 (cursor home and
//! position, erase to end of line, CR, LF with scrolling, autowrap) to turn
//! what the canvas writes into the rows `tmux capture-pane` would show.

/// A tiny terminal emulator for the sequences the canvas uses.
pub fn emulate(bytes: &[u8], (w, h): (usize, usize), history: &mut Vec<String>) -> Vec<String> {
    let mut grid = vec![String::new(); h];
    let (mut row, mut col) = (0usize, 0usize);
    let text = String::from_utf8_lossy(bytes).into_owned();
    let mut it = text.chars().peekable();
    let put = |grid: &mut Vec<String>, row: usize, col: usize, c: char| {
        let mut cells: Vec<char> = grid[row].chars().collect();
        while cells.len() < col {
            cells.push(' ');
        }
        if col < cells.len() {
            cells[col] = c;
        } else {
            cells.push(c);
        }
        grid[row] = cells.into_iter().collect();
    };
    while let Some(c) = it.next() {
        match c {
            '\x1b' => {
                it.next();
                let mut params = String::new();
                while let Some(&p) = it.peek() {
                    it.next();
                    if p.is_ascii_alphabetic() {
                        match p {
                            'H' => {
                                let v: Vec<usize> =
                                    params.split(';').map(|x| x.parse().unwrap_or(1)).collect();
                                row = v[0].max(1) - 1;
                                col = v.get(1).copied().unwrap_or(1).max(1) - 1;
                            }
                            'K' => {
                                let cells: Vec<char> = grid[row].chars().take(col).collect();
                                grid[row] = cells.into_iter().collect();
                            }
                            _ => {}
                        }
                        break;
                    }
                    params.push(p);
                }
            }
            '\r' => col = 0,
            '\n' => {
                if row + 1 == h {
                    history.push(grid.remove(0));
                    grid.push(String::new());
                } else {
                    row += 1;
                }
            }
            c => {
                if col >= w {
                    col = 0;
                    if row + 1 == h {
                        history.push(grid.remove(0));
                        grid.push(String::new());
                    } else {
                        row += 1;
                    }
                }
                put(&mut grid, row, col, c);
                col += 1;
            }
        }
    }
    grid.iter().map(|r| r.trim_end().to_string()).collect()
}
