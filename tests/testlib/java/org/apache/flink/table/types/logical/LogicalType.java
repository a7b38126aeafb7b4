package org.apache.flink.table.types.logical;
public abstract class LogicalType implements java.io.Serializable {
  private static final long serialVersionUID = 1L;
  private final boolean isNullable;
  private final LogicalTypeRoot typeRoot;
  public LogicalType(boolean isNullable, LogicalTypeRoot typeRoot) { this.isNullable = isNullable; this.typeRoot = typeRoot; }
}
