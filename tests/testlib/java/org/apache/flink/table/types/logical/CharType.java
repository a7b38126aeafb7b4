package org.apache.flink.table.types.logical;
public final class CharType extends LogicalType {
  private static final long serialVersionUID = 1L;
  private final int length;
  public CharType(boolean nullable, int length) { super(nullable, LogicalTypeRoot.CHAR); this.length = length; }
}
