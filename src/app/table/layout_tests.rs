//! Tests of `table::layout` (unit and property tests).

use super::*;
use proptest::prelude::*;

/// Natural widths of a wide_browse-like table: name 46, delegate title 5, step 35,
/// numbers 7..9, shapes 30 and 15.
fn demo_natural(c: Column) -> u16 {
    match c {
        Column::Name => 46,
        Column::Delegate => 5,
        Column::Step => 35,
        Column::Count => 7,
        Column::Median => 9,
        Column::Min | Column::Max | Column::P90 => 7,
        Column::Share | Column::ShareMethod => 9,
        Column::Inputs => 30,
        Column::Outputs => 15,
        _ => 6,
    }
}

/// The ETDump columns before the efficiency columns: the layout rules these tests work
/// out by hand do not depend on which columns there are.
const ETDUMP12: [Column; 12] = [
    Column::Name,
    Column::Delegate,
    Column::Step,
    Column::Count,
    Column::Median,
    Column::Min,
    Column::Max,
    Column::P90,
    Column::Share,
    Column::ShareMethod,
    Column::Inputs,
    Column::Outputs,
];

fn total(cols: &[(Column, u16)]) -> u32 {
    cols.iter().map(|c| c.1 as u32).sum::<u32>() + cols.len().saturating_sub(1) as u32
}

fn names(cols: &[(Column, u16)]) -> Vec<Column> {
    cols.iter().map(|c| c.0).collect()
}

#[test]
fn everything_at_natural_width_when_it_fits() {
    // 46+5+35+7+9+7+7+7+9+9+30+15 = 186, plus 11 gaps = 197.
    let c = layout(197, &ETDUMP12, demo_natural, |_| 12, Column::Median, 0);
    assert_eq!(names(&c), ETDUMP12.to_vec());
    for (col, w) in &c {
        assert_eq!(*w, demo_natural(*col), "{col:?}");
    }
    assert_eq!(total(&c), 197);
}

#[test]
fn text_columns_are_cut_before_any_column_leaves() {
    // 158 cells: the minimum widths (step 19, inputs "Inp[u]t shapes" 14, outputs
    // "Output sh[a]pes" 15) make 46+5+19+7+9+7+7+7+9+9+14+15 = 154 + 11 gaps = 165:
    // outputs leave (165 - 16 = 149). Spare 9: step needs 16 to be whole, inputs 16:
    // the shapes (inputs) take the 9 -> 23.
    let c = layout(
        158,
        &ETDUMP12,
        demo_natural,
        |c| if c == Column::Step { 19 } else { 12 },
        Column::Median,
        0,
    );
    use Column::*;
    assert_eq!(
        names(&c),
        [
            Name,
            Delegate,
            Step,
            Count,
            Median,
            Min,
            Max,
            P90,
            Share,
            ShareMethod,
            Inputs
        ]
    );
    assert_eq!(c[0].1, 46);
    assert_eq!(c[2].1, 19);
    assert_eq!(c[10].1, 23);
    assert_eq!(total(&c), 158);
}

#[test]
fn columns_leave_in_order_but_never_the_sorted_one() {
    use Column::*;
    // 78 cells (80x24): name gets min(46, 39) = 39 at least.
    let c = layout(78, &ETDUMP12, demo_natural, |_| 12, Column::Median, 0);
    assert!(c[0].1 >= 39);
    assert!(!names(&c).contains(&Inputs));
    assert!(!names(&c).contains(&Step));
    assert!(names(&c).contains(&Median));
    // Sorted by Min: Min stays while Max (after it in the drop order) goes.
    let c = layout(78, &ETDUMP12, demo_natural, |_| 12, Min, 0);
    assert!(names(&c).contains(&Min), "{c:?}");
    assert!(!names(&c).contains(&Max), "{c:?}");
    // Sorted by input shapes: they stay, cut, with their whole title.
    let c = layout(78, &ETDUMP12, demo_natural, |_| 12, Inputs, 0);
    let w = c.iter().find(|x| x.0 == Inputs).map(|x| x.1);
    assert_eq!(w, Some("Inp[u]t shapes".len() as u16 + 1));
}

#[test]
fn a_column_that_left_comes_back_into_room_freed_later() {
    use Column::*;
    // 130 cells, minimum widths as above (165 with everything): outputs leave (149),
    // inputs leave (134), the step leaves (114, spare 16). The step (19 + gap) still
    // does not fit back; the inputs (14 + gap = 15) do: 129, and take the last cell.
    let step19 = |c| if c == Step { 19 } else { 12 };
    let c = layout(130, &ETDUMP12, demo_natural, step19, Median, 0);
    assert_eq!(
        names(&c),
        [
            Name,
            Delegate,
            Count,
            Median,
            Min,
            Max,
            P90,
            Share,
            ShareMethod,
            Inputs
        ]
    );
    assert_eq!(c[9].1, 15);
    assert_eq!(total(&c), 130);
}

#[test]
fn output_shapes_leave_rather_than_cut_the_input_shapes() {
    use Column::*;
    // The demo at 160x48 (158 inside), one count for all rows (no Count column),
    // inputs 31 wide. Minimum widths: 46+5+19+9+7+7+7+9+9+14+15 = 147 + 10 gaps = 157:
    // all fit, but the inputs would get 15 of 31. Without the outputs (16 less):
    // 141, spare 17: the inputs take 17 -> 31, whole; the step would keep its tail
    // (19 of 35). Min and max leave too (14 + 2 gaps): 125, spare 33 >= 35 - 19 = 16,
    // so the step is whole: 46+5+35+9+7+9+9+31 = 151 + 7 gaps = 158.
    let nat = |c: Column| match c {
        Inputs => 31,
        c => demo_natural(c),
    };
    let cols: Vec<Column> = ETDUMP12.iter().copied().filter(|c| *c != Count).collect();
    let step19 = |c| if c == Step { 19 } else { 12 };
    let c = layout(158, &cols, nat, step19, Median, 0);
    assert!(!names(&c).contains(&Outputs), "{c:?}");
    assert!(
        !names(&c).contains(&Min) && !names(&c).contains(&Max),
        "{c:?}"
    );
    assert_eq!(c.iter().find(|x| x.0 == Inputs).map(|x| x.1), Some(31));
    assert_eq!(c.iter().find(|x| x.0 == Step).map(|x| x.1), Some(35));
    assert_eq!(total(&c), 158);
}

#[test]
fn scrolling_right_brings_back_the_columns_that_left() {
    use Column::*;
    let c0 = layout(78, &ETDUMP12, demo_natural, |_| 12, Median, 0);
    assert!(!names(&c0).contains(&Outputs));
    // Skip the 9 columns between the name and the inputs: inputs and outputs show.
    let c = layout(78, &ETDUMP12, demo_natural, |_| 12, Median, 9);
    assert_eq!(names(&c)[0], Name);
    assert!(
        names(&c).contains(&Median),
        "sorted column never scrolls off"
    );
    assert!(names(&c).contains(&Outputs), "{c:?}");
}

fn column_set() -> impl Strategy<Value = (bool, Vec<u16>)> {
    (any::<bool>(), proptest::collection::vec(1u16..80, 15))
}

proptest! {
    #[test]
    fn layout_properties(
        width in 0u16..300,
        (etdump, nat) in column_set(),
        sort_i in 0usize..12,
        skip in 0usize..12,
        cut in 1u16..30,
    ) {
        let columns: &[Column] = if etdump { &ETDUMP12 } else { &Column::TRACE };
        let sort = columns[sort_i % columns.len()];
        let natural = |c: Column| nat[ALL_COLUMNS.iter().position(|x| *x == c).unwrap()];
        let c = layout(width, columns, natural, |_| cut, sort, skip);
        // Widths never exceed the area.
        prop_assert!(total(&c) <= width as u32 || width == 0 && c.len() <= 1, "{c:?}");
        // The name is first and never narrower than min(longest, half the width).
        prop_assert_eq!(c[0].0, Column::Name);
        let name_nat = natural(Column::Name);
        // The sorted column needs its own width plus a gap; below that the name
        // gives way (tiny tables only).
        let sort_room = if sort == Column::Name { 0 } else {
            let t = sort.title().chars().count() as u16 + 1;
            let need = if sort.flexible() { natural(sort).min(cut.max(t)) } else { natural(sort) };
            need as u32 + 1
        };
        if (width as u32) >= (width / 2) as u32 + sort_room {
            prop_assert!(c[0].1 >= name_nat.min(width / 2), "{c:?}");
            // The sorted column is always shown.
            prop_assert!(c.iter().any(|x| x.0 == sort), "{sort:?} {c:?}");
        }
        // No column twice; all from this source.
        for (i, (col, _)) in c.iter().enumerate() {
            prop_assert!(columns.contains(col));
            prop_assert!(!c[..i].iter().any(|x| x.0 == *col));
        }
    }
}

#[test]
fn etdump_columns_are_the_rooflines_without_peak() {
    use Column::*;
    let want = [
        Name,
        Delegate,
        Step,
        Count,
        Median,
        Min,
        Max,
        P90,
        Share,
        ShareMethod,
        Gflops,
        Gbps,
        Inputs,
        Outputs,
    ];
    assert_eq!(Column::ETDUMP, want);
    let mut peak = want.to_vec();
    peak.insert(12, Peak);
    assert_eq!(Column::ETDUMP_PEAK.to_vec(), peak);
}
