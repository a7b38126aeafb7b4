package org.apache.flink.table.types.logical;
public final class BinaryType extends LogicalType {
  private static final long serialVersionUID = 1L;
  private final int length;
  public BinaryType(boolean nullable, int length) { super(nullable, LogicalTypeRoot.BINARY); this.length = length; }
}
